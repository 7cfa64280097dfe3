/**
 * Detects ed25519 public keys that must not be registered (node-ecosystem.md §1.5, consensus
 * caution): non-canonical encodings (y ≥ p), encodings of no curve point, and points of small
 * order (8·P = identity), for which signatures can verify without the private key's
 * knowledge or differ between implementations (RFC 8032 vs ZIP 215).
 */

const P = 2n ** 255n - 19n;
const D = (-121665n * inverse(121666n)) % P;
const SQRT_M1 = pow(2n, (P - 1n) / 4n);

function mod(a: bigint): bigint {
  const r = a % P;
  return r < 0n ? r + P : r;
}

function pow(base: bigint, exp: bigint): bigint {
  let result = 1n;
  let b = mod(base);
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
    e >>= 1n;
  }
  return result;
}

function inverse(a: bigint): bigint {
  return pow(a, P - 2n);
}

/** Decodes a 32-byte encoding to affine (x, y); null when non-canonical or not on the curve (RFC 8032 §5.1.3). */
function decodePoint(bytes: Uint8Array): [bigint, bigint] | null {
  const b = Buffer.from(bytes);
  const sign = b[31]! >> 7;
  b[31]! &= 0x7f;
  const y = BigInt(`0x${Buffer.from(b).reverse().toString("hex")}`);
  if (y >= P) return null;
  const u = mod(y * y - 1n);
  const v = mod(D * y * y + 1n);
  let x = mod(u * pow(v, 3n) * pow(u * pow(v, 7n), (P - 5n) / 8n));
  const vx2 = mod(v * x * x);
  if (vx2 !== u) {
    if (vx2 !== mod(-u)) return null;
    x = mod(x * SQRT_M1);
  }
  if (x === 0n && sign === 1) return null;
  if (Number(x & 1n) !== sign) x = mod(-x);
  return [x, y];
}

/** Doubles a point in extended coordinates (X, Y, Z, T). */
function double([X, Y, Z]: bigint[]): bigint[] {
  const A = mod(X! * X!);
  const B = mod(Y! * Y!);
  const C = mod(2n * Z! * Z!);
  const H = mod(A + B);
  const E = mod(H - mod((X! + Y!) * (X! + Y!)));
  const G = mod(A - B);
  const F = mod(C + G);
  return [mod(E * F), mod(G * H), mod(F * G), mod(E * H)];
}

/** True when the 32-byte public key is non-canonical, not a curve point, or of small order. */
export function isWeakPublicKey(key: Uint8Array): boolean {
  if (key.byteLength !== 32) return true;
  const point = decodePoint(key);
  if (point === null) return true;
  const [x, y] = point;
  let q = [x, y, 1n, mod(x * y)];
  for (let i = 0; i < 3; i++) q = double(q);
  // 8·P is the identity (0, 1) exactly when X = 0 and Y = Z.
  return q[0] === 0n && q[1] === q[2];
}
