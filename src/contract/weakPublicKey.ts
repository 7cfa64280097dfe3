/**
 * Detects ed25519 public keys the hub refuses wherever a key enters (docs/security.md, weak
 * keys): non-canonical encodings (y ≥ p, or x = 0 with the sign bit set), encodings of no
 * curve point, and points of small order (8·P = identity), for which signatures can verify
 * without knowledge of any private key or differ between implementations (RFC 8032 vs ZIP 215).
 */
import { ContractError } from "./ContractError.js";
import type { ErrorCode } from "./errorCodes.js";

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

/**
 * Keys already found strong (hex). The check costs a few hundred microseconds of BigInt
 * arithmetic, and the same few keys enter again and again (signers, `.id` values, the key
 * cache); weak keys are never remembered, so a refused key costs its sender every time.
 */
const strongKeys = new Set<string>();
const STRONG_KEYS_CAPACITY = 8192;

/**
 * Throws `code` (INVALID_REQUEST unless told) with `details.reason: "weak_key"` naming `field`
 * when `key` is weak: the one check every entry point of a key calls.
 */
export function assertStrongKey(key: Uint8Array, field: string, code: ErrorCode = "INVALID_REQUEST"): void {
  const hex = Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString("hex");
  if (strongKeys.has(hex)) return;
  if (isWeakPublicKey(key)) {
    throw new ContractError(
      code,
      `Cannot accept ${field}: the public key is weak (of small order, not a curve point, or not canonically encoded)`,
      { reason: "weak_key", field },
    );
  }
  if (strongKeys.size >= STRONG_KEYS_CAPACITY) strongKeys.clear();
  strongKeys.add(hex);
}
