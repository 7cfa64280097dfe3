import { createHash, type KeyObject } from "node:crypto";
import type { Operation } from "./Commit.js";
import { canonicalize } from "./canonicalJson.js";
import { decodeHash, decodeSignature, encodeHex } from "./hex.js";
import { type SigningKey, sign, type VerifyingKey, verify, verifyAsync } from "./keys.js";

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

/** The UTF-8 JCS text that the commit hash covers. */
export function commitCanonicalText(contractId: string, parent: string | null, data: readonly Operation[]): string {
  return canonicalize(commitPayload(contractId, parent, data));
}

/** Lower-case hex SHA-256 of the commit's canonical text. */
export function computeCommitHash(contractId: string, parent: string | null, data: readonly Operation[]): string {
  return sha256Hex(commitCanonicalText(contractId, parent, data));
}

/** Lower-case hex SHA-256 of a string's UTF-8 bytes or of raw bytes. */
export function sha256Hex(input: string | Uint8Array): string {
  return createHash("sha256").update(input).digest("hex");
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

/** `verifyCommitSignature` on the threadpool. */
export function verifyCommitSignatureAsync(hash: string, publicKey: VerifyingKey, signature: string): Promise<boolean> {
  try {
    return verifyAsync(publicKey, decodeHash(hash, "commit hash"), decodeSignature(signature, "commit signature"));
  } catch (err) {
    return Promise.reject(err);
  }
}
