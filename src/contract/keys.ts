import {
  createPrivateKey,
  createPublicKey,
  sign as cryptoSign,
  verify as cryptoVerify,
  generateKeyPairSync,
  KeyObject,
} from "node:crypto";
import { ContractError } from "./ContractError.js";
import { IDENTITY_PREFIX, parseIdentity } from "./hex.js";
import { assertStrongKey } from "./weakPublicKey.js";

/** DER SPKI header of an ed25519 public key; the raw 32 bytes follow it. */
export const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
/** DER PKCS#8 header of an ed25519 private key; the raw 32-byte seed follows it. */
export const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** A raw ed25519 key pair: the 32-byte seed (private key) and the 32-byte public key. */
export interface RawKeyPair {
  seed: Buffer;
  publicKey: Buffer;
}

/** A signing key: a raw 32-byte seed, or an ed25519 private KeyObject (faster when reused). */
export type SigningKey = Uint8Array | KeyObject;
/**
 * A verifying key: a raw 32-byte public key or its text (64 lower-case hex, or
 * `ed25519:<hex>`), imported through the cache; or a KeyObject.
 */
export type VerifyingKey = Uint8Array | string | KeyObject;

/** Generates a fresh key pair from the system CSPRNG. */
export function generateKeyPair(): RawKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const seed = privateKey.export({ format: "der", type: "pkcs8" }).subarray(ED25519_PKCS8_PREFIX.length);
  const pub = publicKey.export({ format: "der", type: "spki" }).subarray(ED25519_SPKI_PREFIX.length);
  return { seed: Buffer.from(seed), publicKey: Buffer.from(pub) };
}

/** Imports a 32-byte seed as a private KeyObject. */
export function privateKeyFromSeed(seed: Uint8Array): KeyObject {
  expectLength(seed, 32, "sign", "seed");
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
}

/** The 32-byte public key of a 32-byte seed. */
export function publicKeyFromSeed(seed: Uint8Array): Buffer {
  const pub = createPublicKey(privateKeyFromSeed(seed)).export({ format: "der", type: "spki" });
  return Buffer.from(pub.subarray(ED25519_SPKI_PREFIX.length));
}

/** The raw 32 bytes of an ed25519 public KeyObject. */
export function rawPublicKey(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: "der", type: "spki" }).subarray(ED25519_SPKI_PREFIX.length));
}

/**
 * Bounded LRU of imported public keys. Importing the raw key on every call halves verify
 * throughput, and a push verifies the same few authors many times.
 * A Map iterates in insertion order, so re-inserting on a hit keeps the oldest entry first.
 */
export class PublicKeyCache {
  readonly #map = new Map<string, KeyObject>();
  readonly capacity: number;
  // The last key asked for: a push asks for the same author's key once per commit, and
  // answering it here skips the LRU's re-insertion (two string hashes of 64 characters).
  #lastId = "";
  #lastKey: KeyObject | undefined;

  constructor(capacity = 4096) {
    this.capacity = Math.max(1, capacity);
  }

  /**
   * The KeyObject for a public key given as 32 raw bytes or as text (strict hex, either
   * identity spelling), imported once while it stays in the cache. A weak key throws
   * VALIDATION_FAILED `weak_key`.
   */
  get(raw: Uint8Array | string): KeyObject {
    let id: string;
    if (typeof raw === "string") {
      id = raw.startsWith(IDENTITY_PREFIX) ? raw.slice(IDENTITY_PREFIX.length) : raw;
    } else {
      expectLength(raw, 32, "verify", "public key");
      id = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("hex");
    }
    if (id === this.#lastId && this.#lastKey !== undefined) return this.#lastKey;
    const hit = this.#map.get(id);
    if (hit !== undefined) {
      this.#map.delete(id);
      this.#map.set(id, hit);
      this.#lastId = id;
      this.#lastKey = hit;
      return hit;
    }
    // Verification refuses weak keys too: a key never enters the cache without the check.
    const bytes = typeof raw === "string" ? parseIdentity(raw, "public key", undefined, "VALIDATION_FAILED") : raw;
    if (typeof raw !== "string") assertStrongKey(bytes, "public key", "VALIDATION_FAILED");
    const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, bytes]), format: "der", type: "spki" });
    this.#map.set(id, key);
    if (this.#map.size > this.capacity) this.#map.delete(this.#map.keys().next().value!);
    return key;
  }

  get size(): number {
    return this.#map.size;
  }

  clear(): void {
    this.#map.clear();
    this.#lastKey = undefined;
  }
}

/** The process-wide cache used by `verify` and `verifyAsync`. */
export const publicKeyCache = new PublicKeyCache();

/** Signs `message` with ed25519 (pure, no pre-hash); returns the 64-byte signature. */
export function sign(key: SigningKey, message: Uint8Array): Buffer {
  const k = key instanceof KeyObject ? key : privateKeyFromSeed(key);
  return cryptoSign(null, message, k);
}

/**
 * Verifies an ed25519 signature. A well-formed but wrong signature is `false`; a public key
 * or signature of the wrong length is a caller error (INVALID_REQUEST), since the hex
 * decoders should have refused it already; a weak public key is VALIDATION_FAILED `weak_key`.
 */
export function verify(publicKey: VerifyingKey, message: Uint8Array, signature: Uint8Array): boolean {
  const key = publicKey instanceof KeyObject ? publicKey : publicKeyCache.get(publicKey);
  expectLength(signature, 64, "verify", "signature");
  return cryptoVerify(null, message, key, signature);
}

/**
 * `verify` on the libuv threadpool (the callback form of crypto.verify), so several
 * verifications run in parallel and the event loop stays free. Input errors throw
 * synchronously-rejected promises with the same codes as `verify`.
 */
export function verifyAsync(publicKey: VerifyingKey, message: Uint8Array, signature: Uint8Array): Promise<boolean> {
  try {
    const key = publicKey instanceof KeyObject ? publicKey : publicKeyCache.get(publicKey);
    expectLength(signature, 64, "verify", "signature");
    return new Promise((resolve, reject) => {
      cryptoVerify(null, message, key, signature, (err, ok) => (err ? reject(err) : resolve(ok)));
    });
  } catch (err) {
    return Promise.reject(err);
  }
}

function expectLength(bytes: Uint8Array, length: number, action: string, what: string): void {
  if (!(bytes instanceof Uint8Array)) {
    throw new ContractError("INVALID_REQUEST", `Cannot ${action}: ${what} must be bytes`, { reason: "key_not_bytes" });
  }
  if (bytes.byteLength !== length) {
    throw new ContractError(
      "INVALID_REQUEST",
      `Cannot ${action}: ${what} must be ${length} bytes, got ${bytes.byteLength}`,
      { reason: `${what.replace(" ", "_")}_wrong_length`, expected: length, actual: bytes.byteLength },
    );
  }
}
