import * as cryptoModule from "node:crypto";
import { createHash, type KeyObject } from "node:crypto";
import type { Operation } from "./Commit.js";
import { canonicalize } from "./canonicalJson.js";
import { decodeHash, decodeSignature, encodeHex } from "./hex.js";
import { type SigningKey, sign, type VerifyingKey, verify } from "./keys.js";
import { DEFAULT_LIMITS } from "./limits.js";

/**
 * The object whose JCS text is hashed (docs/protocol.md). Operations are rebuilt with only
 * `method`, `path` and `value`, so an absent field is never hashed as `undefined` or null.
 */
export function commitPayload(
  contractId: string,
  parent: string | null,
  data: readonly Operation[],
): { contract_id: string; parent: string | null; data: Operation[] } {
  return {
    contract_id: contractId,
    parent,
    data: data.map((op) => {
      const out: Operation = { method: op.method };
      if (op.path !== undefined) out.path = op.path;
      if (op.value !== undefined) out.value = op.value;
      return out;
    }),
  };
}

/** Nesting of an operation's value inside the payload: payload object, data array, operation. */
const VALUE_DEPTH = 3;
const valueOptions = { maxDepth: DEFAULT_LIMITS.jsonDepth - VALUE_DEPTH };

/**
 * The UTF-8 JCS text that the commit hash covers: `canonicalize(commitPayload(...))`, written
 * directly. The payload's keys and each operation's keys are fixed, and already in JCS order
 * (contract_id < data < parent; method < path < value), so only the values need the general
 * walk; every commit of every push is hashed here, and the general walk sorts and escapes
 * the fixed keys each time. Whatever the direct text refuses, the general walk refuses too,
 * and is asked again for its error, which names the JSON pointer in the whole payload.
 */
export function commitCanonicalText(contractId: string, parent: string | null, data: readonly Operation[]): string {
  try {
    let out = `{"contract_id":${canonicalize(contractId)},"data":[`;
    for (let i = 0; i < data.length; i++) {
      const op = data[i]!;
      out += `${i > 0 ? "," : ""}{"method":${canonicalize(op.method)}`;
      if (op.path !== undefined) out += `,"path":${canonicalize(op.path)}`;
      if (op.value !== undefined) out += `,"value":${canonicalize(op.value, valueOptions)}`;
      out += "}";
    }
    return `${out}],"parent":${parent === null ? "null" : canonicalize(parent)}}`;
  } catch {
    return canonicalize(commitPayload(contractId, parent, data));
  }
}

/** Lower-case hex SHA-256 of the commit's canonical text. */
export function computeCommitHash(contractId: string, parent: string | null, data: readonly Operation[]): string {
  return sha256Hex(commitCanonicalText(contractId, parent, data));
}

/** crypto.hash (Node 20.12 and later): one call, no Hash object, about twice as fast for small inputs. */
const oneShotHash = (
  cryptoModule as { hash?: (algorithm: string, data: string | Uint8Array, encoding: "hex") => string }
).hash;

/** Lower-case hex SHA-256 of a string's UTF-8 bytes or of raw bytes. */
export function sha256Hex(input: string | Uint8Array): string {
  return oneShotHash !== undefined
    ? oneShotHash("sha256", input, "hex")
    : createHash("sha256").update(input).digest("hex");
}

/** Signs a commit: ed25519 over the 32 raw bytes of its hash; returns 128 hex characters. */
export function signCommit(hash: string, key: SigningKey | KeyObject): string {
  return encodeHex(sign(key, decodeHash(hash, "commit hash")));
}

/**
 * True when `signature` (128 hex) is the key's ed25519 signature of the commit hash.
 * Malformed hex is INVALID_REQUEST; a well-formed wrong signature is `false`.
 */
export function verifyCommitSignature(hash: string, publicKey: VerifyingKey, signature: string): boolean {
  return verify(publicKey, decodeHash(hash, "commit hash"), decodeSignature(signature, "commit signature"));
}
