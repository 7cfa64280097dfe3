/**
 * Just enough edwards25519 arithmetic (RFC 8032 §5.1) for tests to derive weak-key vectors
 * from the curve itself: the eight torsion points found by multiplying a curve point by the
 * group order, every 32-byte encoding that a lenient decoder maps onto them, non-canonical
 * encodings, and mixed-order keys. Slow BigInt code, test-only, never on a hub path.
 */

export const P = 2n ** 255n - 19n;
/** Order of the prime-order subgroup. */
export const L = 2n ** 252n + 27742317777372353535851937790883648493n;

export const mod = (a: bigint): bigint => {
  const r = a % P;
  return r < 0n ? r + P : r;
};

function pow(base: bigint, exp: bigint): bigint {
  let result = 1n;
  let b = mod(base);
  for (let e = exp; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
  }
  return result;
}

const inv = (a: bigint) => pow(a, P - 2n);
const D = mod(-121665n * inv(121666n));
const D2 = mod(2n * D);
const SQRT_M1 = pow(2n, (P - 1n) / 4n);

/** A point in extended coordinates (x = X/Z, y = Y/Z, xy = T/Z). */
export interface Point {
  X: bigint;
  Y: bigint;
  Z: bigint;
  T: bigint;
}

export const IDENTITY: Point = { X: 0n, Y: 1n, Z: 1n, T: 0n };

export function fromAffine(x: bigint, y: bigint): Point {
  return { X: mod(x), Y: mod(y), Z: 1n, T: mod(x * y) };
}

/** Complete addition for a = −1 (also doubles). */
export function add(p: Point, q: Point): Point {
  const A = mod((p.Y - p.X) * (q.Y - q.X));
  const B = mod((p.Y + p.X) * (q.Y + q.X));
  const C = mod(p.T * D2 * q.T);
  const Dd = mod(p.Z * 2n * q.Z);
  const E = B - A;
  const F = Dd - C;
  const G = Dd + C;
  const H = B + A;
  return { X: mod(E * F), Y: mod(G * H), T: mod(E * H), Z: mod(F * G) };
}

export function negate(p: Point): Point {
  return { X: mod(-p.X), Y: p.Y, Z: p.Z, T: mod(-p.T) };
}

export function multiply(p: Point, k: bigint): Point {
  let result = IDENTITY;
  let addend = p;
  for (let e = k; e > 0n; e >>= 1n) {
    if (e & 1n) result = add(result, addend);
    addend = add(addend, addend);
  }
  return result;
}

export function affine(p: Point): [bigint, bigint] {
  const zi = inv(p.Z);
  return [mod(p.X * zi), mod(p.Y * zi)];
}

export function equals(p: Point, q: Point): boolean {
  return mod(p.X * q.Z - q.X * p.Z) === 0n && mod(p.Y * q.Z - q.Y * p.Z) === 0n;
}

/** Encodes y (any integer below 2^255, so also non-canonical ones) with the sign bit `sign`. */
export function encodeRaw(y: bigint, sign: number): Buffer {
  const out = Buffer.alloc(32);
  let v = y;
  for (let i = 0; i < 32; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  out[31]! |= sign << 7;
  return out;
}

/** The canonical encoding of a point. */
export function encode(p: Point): Buffer {
  const [x, y] = affine(p);
  return encodeRaw(y, Number(x & 1n));
}

/**
 * Decodes leniently, as a permissive verifier might: y is reduced mod p and x = 0 takes
 * either sign. Null when y gives no curve point.
 */
export function decodeLenient(bytes: Uint8Array): Point | null {
  const b = Buffer.from(bytes);
  const sign = b[31]! >> 7;
  b[31]! &= 0x7f;
  const y = mod(BigInt(`0x${Buffer.from(b).reverse().toString("hex")}`));
  const u = mod(y * y - 1n);
  const v = mod(D * y * y + 1n);
  let x = mod(u * pow(v, 3n) * pow(u * pow(v, 7n), (P - 5n) / 8n));
  const vx2 = mod(v * x * x);
  if (vx2 !== u) {
    if (vx2 !== mod(-u)) return null;
    x = mod(x * SQRT_M1);
  }
  if (Number(x & 1n) !== sign) x = mod(-x);
  return fromAffine(x, y);
}

/** The base point B (y = 4/5, x even). */
export const BASE = decodeLenient(encodeRaw(mod(4n * inv(5n)), 0))!;

/** The eight torsion points, as multiples of one of order 8 found from the curve itself. */
export function torsionPoints(): Point[] {
  for (let y = 2n; ; y++) {
    const q = decodeLenient(encodeRaw(y, 0));
    if (q === null) continue;
    const t = multiply(q, L);
    if (equals(multiply(t, 4n), IDENTITY)) continue; // order below 8
    const points = [IDENTITY];
    for (let k = 1; k < 8; k++) points.push(add(points[k - 1]!, t));
    return points;
  }
}

/** Every 32-byte string that decodes leniently to a torsion point (canonical or not), as hex. */
export function smallOrderEncodings(): string[] {
  const torsion = torsionPoints();
  const found = new Set<string>();
  for (const t of torsion) {
    const [, y] = affine(t);
    for (const yy of [y, y + P]) {
      if (yy >= 2n ** 255n) continue;
      for (const sign of [0, 1]) {
        const bytes = encodeRaw(yy, sign);
        const back = decodeLenient(bytes);
        if (back !== null && torsion.some((p) => equals(p, back))) found.add(bytes.toString("hex"));
      }
    }
  }
  return [...found].sort();
}
