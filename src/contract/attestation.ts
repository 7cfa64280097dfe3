import { createHash } from "node:crypto";
import { preparedAttestationHash } from "./attestationHashInSlices.js";
import { canonicalize } from "./canonicalJson.js";
import { decodeSignature, encodeHex, formatIdentity, parseIdentity } from "./hex.js";
import { type SigningKey, sign, verify, verifyAsync } from "./keys.js";

/** What an oracle signs: bound to one contract position so it cannot be replayed elsewhere. */
export interface AttestationPayload {
  contract_id: string;
  /** Parent of the commit that carries the attestation (null for a genesis). */
  parent: string | null;
  claim: string;
  value: unknown;
}

/** The JCS text of an attestation payload. */
export function attestationCanonicalText(payload: AttestationPayload): string {
  return canonicalize({
    contract_id: payload.contract_id,
    parent: payload.parent,
    claim: payload.claim,
    value: payload.value,
  });
}

/**
 * SHA-256 (32 raw bytes) of the attestation payload's JCS text: the signed message. A big
 * attestation's hash was prepared in the hub's shared slices (attestationHashInSlices.ts).
 */
export function attestationHash(payload: AttestationPayload): Buffer {
  return preparedAttestationHash(payload) ?? createHash("sha256").update(attestationCanonicalText(payload)).digest();
}

/** Builds a signed attestation `{oracle, claim, value, signature}` for `head.attestations`. */
export function signAttestation(
  payload: AttestationPayload,
  seed: SigningKey,
  oraclePublicKey: Uint8Array,
): { oracle: string; claim: string; value: unknown; signature: string } {
  return {
    oracle: formatIdentity(oraclePublicKey),
    claim: payload.claim,
    value: payload.value,
    signature: encodeHex(sign(seed, attestationHash(payload))),
  };
}

/**
 * True when the attestation's signature is its oracle's signature over the payload at
 * (contractId, parent). Malformed oracle or signature hex is INVALID_REQUEST.
 */
export function verifyAttestation(
  attestation: { oracle: string; claim: string; value: unknown; signature: string },
  contractId: string,
  parent: string | null,
): boolean {
  const key = parseIdentity(attestation.oracle, "attestation oracle");
  const sig = decodeSignature(attestation.signature, "attestation signature");
  return verify(
    key,
    attestationHash({ contract_id: contractId, parent, claim: attestation.claim, value: attestation.value }),
    sig,
  );
}

/** `verifyAttestation` on the threadpool. */
export function verifyAttestationAsync(
  attestation: { oracle: string; claim: string; value: unknown; signature: string },
  contractId: string,
  parent: string | null,
): Promise<boolean> {
  try {
    const key = parseIdentity(attestation.oracle, "attestation oracle");
    const sig = decodeSignature(attestation.signature, "attestation signature");
    const msg = attestationHash({
      contract_id: contractId,
      parent,
      claim: attestation.claim,
      value: attestation.value,
    });
    return verifyAsync(key, msg, sig);
  } catch (err) {
    return Promise.reject(err);
  }
}
