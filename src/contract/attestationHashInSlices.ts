/**
 * attestationHash for attestations too big to hash in one go on the event loop: the same JCS
 * text of `{claim, contract_id, parent, value}`, written in pieces by commitHashInSlices's
 * writer and fed to SHA-256 piece by piece, with `tick()` between pieces. An attestation's
 * value is any JSON, as big as a push body allows, and its signature check canonicalized and
 * hashed it in one piece (a 15 MB value held the loop like the commit hash it is not part of).
 *
 * The hub hashes the attestations of a commit whose attestations are big (isBigAttestations)
 * before its shape check (`prepareAttestationHash`); attestationHash then finds the hash here
 * (`preparedAttestationHash`) instead of computing it. Small attestations, the common case,
 * are hashed as before: no promise, no lookup cost beyond an empty list. No timer here: the
 * tick is the caller's.
 */

import { ContractError } from "./ContractError.js";
import { canonicalize } from "./canonicalJson.js";
import { BIG_COMMIT_WEIGHT, hashInSlices, type Out, weigh, write } from "./commitHashInSlices.js";

/** Whether `head.attestations` (as received: anything) weigh BIG_COMMIT_WEIGHT or more, claims and values; stops counting there. */
export function isBigAttestations(attestations: unknown): boolean {
  if (!Array.isArray(attestations)) return false;
  let left = BIG_COMMIT_WEIGHT;
  for (const a of attestations) {
    left = weigh(a, left, 0);
    if (left <= 0) return true;
  }
  return false;
}

/** What an oracle signs (attestation.ts's AttestationPayload, repeated: that module imports this one). */
interface Payload {
  contract_id: string;
  parent: string | null;
  claim: string;
  value: unknown;
}

/** attestationCanonicalText in pieces: the payload's keys in JCS order, claim and value written by `write`. */
function* attestationText(o: Out, p: Payload): Generator<void, void, void> {
  o.text += `{"claim":`;
  yield* write(o, p.claim, 1, "/claim");
  o.text += `,"contract_id":${canonicalize(p.contract_id)},"parent":${p.parent === null ? "null" : canonicalize(p.parent)},"value":`;
  yield* write(o, p.value, 1, "/value");
  o.text += "}";
}

/** attestationHash(payload), or the error it throws (same code, reason, pointer), in pieces with `tick()` between them. */
export function attestationHashInSlices(payload: Payload, tick: () => Promise<void> | void): Promise<Buffer> {
  return hashInSlices((o) => attestationText(o, payload), tick);
}

/** An attestation hashed ahead of its signature check, and what the hash came to. */
interface Prepared {
  payload: Payload;
  outcome: Buffer | ContractError;
}

/** Hashed ahead and not yet asked for: a commit carries at most 16 attestations (limits.ts). */
const KEPT = 16;
const prepared: Prepared[] = [];

/** Hashes `payload` in slices and keeps the outcome for its signature check; a canonicalization refusal is kept too. */
export async function prepareAttestationHash(payload: Payload, tick: () => Promise<void> | void): Promise<void> {
  let outcome: Buffer | ContractError;
  try {
    outcome = await attestationHashInSlices(payload, tick);
  } catch (err) {
    if (!(err instanceof ContractError)) throw err;
    outcome = err;
  }
  prepared.push({ payload, outcome });
  if (prepared.length > KEPT) prepared.shift();
}

/**
 * The hash prepared for this payload, or undefined; throws the refusal its hash met. Payloads
 * match when contract, parent, claim and value are the same (`===`): the very values
 * prepared. An outcome is handed out once, so it never stands for values that changed later.
 */
export function preparedAttestationHash(payload: Payload): Buffer | undefined {
  if (prepared.length === 0) return undefined;
  for (let k = prepared.length - 1; k >= 0; k--) {
    const p = prepared[k]!.payload;
    if (
      p.contract_id !== payload.contract_id ||
      p.parent !== payload.parent ||
      p.claim !== payload.claim ||
      p.value !== payload.value
    )
      continue;
    const { outcome } = prepared.splice(k, 1)[0]!;
    if (outcome instanceof Buffer) return outcome;
    throw outcome;
  }
  return undefined;
}
