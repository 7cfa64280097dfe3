import type { Caller } from "../../api/Caller.js";
import type { SubmitCommitResult } from "../../api/responses.js";
import { ContractError, isContractError } from "../../contract/ContractError.js";
import type { ContractState } from "../../contract/ContractState.js";
import { verifyCommitSignature } from "../../contract/commitHash.js";
import { proposalCountable } from "../../contract/engine.js";
import { decodeHash, typeName } from "../../contract/hex.js";
import { DEFAULT_LIMITS } from "../../contract/limits.js";
import { validateCommitShape } from "../../contract/validateCommitShape.js";
import { resolveSignerKey } from "../../contract/verifySigners.js";
import { type ProposalRecord, proposalStatus, sameSignatures } from "../../store/ProposalRecord.js";
import { commitStamp } from "../commitStamp.js";
import type { HubContext } from "../HubContext.js";
import { decideUnderLock } from "./decideUnderLock.js";
import { proposalClosed, proposalNotFound } from "./proposalErrors.js";
import { type ProposalView, proposalCommit, proposalView } from "./proposalView.js";

/**
 * `POST /contracts/:id/proposals/:hash/signatures`: anyone who may read the contract uploads
 * signatures (they, not the caller, are what count). Each is verified on arrival against the
 * key at its path in the state before the commit, and must be one the commit could count (see
 * refuseUncounted), then stored; when the commit then validates it is appended with every
 * collected signature. A request refused for its signatures stores nothing; when the
 * signatures are taken but the engine then refuses the commit for another reason (a deadline
 * passed), that refusal is the answer and the signatures stay collected (docs/proposals.md).
 */
export async function signProposal(
  hub: HubContext,
  caller: Caller,
  id: string,
  hash: string,
  body: { signatures?: unknown },
): Promise<{ proposal: ProposalView; commit?: SubmitCommitResult }> {
  decodeHash(hash, "hash");
  if (caller.identity === null)
    throw new ContractError("UNAUTHORIZED", "Authentication is required to sign a proposal", {
      reason: "unauthenticated",
    });
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new ContractError("INVALID_REQUEST", `Invalid body: expected an object, got ${typeName(body)}`, {
      reason: "body_not_object",
    });
  const { state } = await hub.access(caller, id, "read");
  const found = await hub.store.getProposal(id, hash);
  if (found === null) throw proposalNotFound(id, hash);
  const settled = await settledAnswer(hub, found, state);
  if (settled !== null) return settled;
  await hub.work.preparse(caller, [proposalCommit(found)], hub.settings.limits);
  const uploaded = checkedSignatures(found, body.signatures, hub.settings.limits ?? DEFAULT_LIMITS);
  for (const [signer, signature] of Object.entries(uploaded)) {
    const key = resolveSignerKey(signer, state.data);
    if (!verifyCommitSignature(hash, key, signature))
      throw new ContractError("VALIDATION_FAILED", `Signature of "${signer}" does not verify for proposal ${hash}`, {
        reason: "bad_signature",
        signer,
      });
  }
  return hub.locks.run(id, async () => {
    const { state: now } = await hub.access(caller, id, "read");
    // Read again under the lock and with the state: a signer that held the lock before this one
    // may have completed the proposal (it is committed, and the head has moved past its parent,
    // so the copy read before the lock would look stale) or added signatures. Deciding on that
    // earlier copy answered such a signer 409 instead of the committed proposal.
    let before = await hub.store.getProposal(id, hash);
    let fresh: ProposalRecord;
    for (;;) {
      if (before === null) throw proposalNotFound(id, hash);
      const answer = await settledAnswer(hub, before, now);
      if (answer !== null) return answer;
      const added = newKeysOnly(before, uploaded, now);
      // Judged under the lock with what earlier signers stored: two uploads, each countable on
      // its own, could together leave no transition (a `-signed_by` one of them triggers).
      await refuseUncounted(hub, before, now, added);
      // Stored before deciding, atomically with other signers' additions, so whichever signer
      // stores last sees every signature and completes the commit, on whichever hub instance.
      // Stored only if the proposal still holds the signatures judged against: another
      // instance (its own lock) may have stored some meanwhile, and then it is judged again.
      const expected = { ...before.signatures, ...added };
      const stored = await hub.store.addProposalSignatures(id, hash, added, before.signatures);
      if (stored !== null && stored.status === "open" && sameSignatures(stored.signatures, expected)) {
        fresh = stored;
        break;
      }
      before = stored;
    }
    try {
      // Every stored signature was verified on arrival against this state (its parent is the head).
      const keys = [...new Set(Object.keys(fresh.signatures).map((signer) => resolveSignerKey(signer, now.data)))];
      // Judged as its proposer's commit, as when it was proposed: a REPOST source is read with the
      // proposer's access, not with that of whoever uploads the last signature.
      const proposer: Caller = { identity: fresh.proposer, accessKey: null };
      // A big attestation's signed message is hashed in slices charged to the uploader, on the
      // very values decided below (the record read under the lock), as a proposal's are when
      // proposed: its verification hashed 15 MB in one piece (attestationHashInSlices.ts).
      const commit = proposalCommit(fresh);
      await hub.work.prehash(caller, id, [commit], hub.settings.limits);
      // The uploader's request pays for the decision its signature set off.
      const outcome = await decideUnderLock(hub, proposer, id, now, commit, undefined, keys, caller);
      const current = (await hub.store.getProposal(id, hash))!;
      const proposal = await proposalView(
        current,
        now,
        hub.now(),
        hub.settings,
        "missing" in outcome ? outcome.missing : undefined,
      );
      hub.bus.publishProposal(id, proposal);
      return "committed" in outcome ? { proposal, commit: outcome.committed } : { proposal };
    } catch (err) {
      // Another instance appended first: the proposal is committed (200) or now stale (409).
      if (!isContractError(err, "CONFLICT")) throw err;
      const again = await hub.access(caller, id, "read");
      const latest = (await hub.store.getProposal(id, hash))!;
      const settledNow = await settledAnswer(hub, latest, again.state);
      if (settledNow !== null) return settledNow;
      throw err;
    }
  });
}

/**
 * Refuses (422 `signature_not_counted`, naming the signer) an uploaded signature whose key no
 * transition the commit could still take would count, judged on the signatures collected and
 * uploaded together: a key no signature predicate names, or one a `-signed_by` forbids so that
 * no transition is left. Uploading needs only read access, so without this check anyone could
 * fill the proposal's signature limit with throw-away keys (locking out the real co-signers),
 * change the commit's recorded signers, or store a signature that makes it impossible. Checked
 * under the contract's lock, before storing, and stored only if no other instance stored
 * signatures meanwhile, so concurrent uploads are judged one after the other.
 */
async function refuseUncounted(
  hub: HubContext,
  p: ProposalRecord,
  state: ContractState,
  added: Record<string, string>,
): Promise<void> {
  const keyOf = (signer: string) => resolveSignerKey(signer, state.data);
  const keys = [...new Set(Object.keys({ ...p.signatures, ...added }).map(keyOf))];
  const countable = await proposalCountable(state, proposalCommit(p), keys, {
    // Judged at the time the commit would be stamped with.
    timestamp: commitStamp(hub.now, state),
    wasm: hub.settings.wasm ?? null,
    // A wide model is judged in slices (see countableSigners).
    ...(hub.settings.tick !== undefined ? { tick: hub.settings.tick } : {}),
  });
  for (const signer of Object.keys(added)) {
    if (!countable.has(keyOf(signer)))
      throw new ContractError(
        "VALIDATION_FAILED",
        `Signature of "${signer}" cannot count toward proposal ${p.hash}: no transition the commit could take asks for that key`,
        { reason: "signature_not_counted", signer },
      );
  }
}

/**
 * The uploaded signatures less those of a key the proposal holds a signature of under another
 * signer (its state path or identity, or another path holding the same key), or that the upload
 * holds under an earlier one. Another spelling adds nothing the commit counts; stored, it would
 * let anyone who may read copy the collected signatures under new names, filling the proposal's
 * signature limit so that the last co-signers' signatures no longer fit.
 */
function newKeysOnly(
  p: ProposalRecord,
  uploaded: Record<string, string>,
  state: ContractState,
): Record<string, string> {
  const holder = new Map(Object.keys(p.signatures).map((signer) => [resolveSignerKey(signer, state.data), signer]));
  const added: Record<string, string> = {};
  for (const [signer, signature] of Object.entries(uploaded)) {
    const key = resolveSignerKey(signer, state.data);
    const held = holder.get(key);
    if (held !== undefined && held !== signer) continue;
    holder.set(key, signer);
    added[signer] = signature;
  }
  return added;
}

/**
 * The answer for a proposal that can no longer take signatures: a committed one is returned as
 * it is (an idempotent retry), a stale, withdrawn or expired one is 409. Null while open.
 */
async function settledAnswer(
  hub: HubContext,
  p: ProposalRecord,
  state: ContractState,
): Promise<{ proposal: ProposalView } | null> {
  const status = proposalStatus(p, state.head, hub.now());
  if (status === "open") return null;
  if (status === "committed") return { proposal: await proposalView(p, state, hub.now(), hub.settings) };
  throw proposalClosed(p.hash, status, state.head);
}

/**
 * The uploaded signatures, checked as a commit's would be (keys are state paths or identities,
 * signatures 128 hex characters, at most the per-commit limit together with those collected).
 */
function checkedSignatures(p: ProposalRecord, raw: unknown, limits: typeof DEFAULT_LIMITS): Record<string, string> {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw) || Object.keys(raw).length === 0)
    throw new ContractError("INVALID_REQUEST", "`signatures` must be an object with at least one signature", {
      reason: "signatures_required",
      field: "signatures",
    });
  const commit = proposalCommit(p);
  const shaped = validateCommitShape(
    { ...commit, head: { ...commit.head, signatures: raw } },
    { contractId: p.contractId, limits },
  );
  const added = shaped.head.signatures;
  const total = Object.keys({ ...p.signatures, ...added }).length;
  if (total > limits.signaturesPerCommit)
    throw new ContractError(
      "PAYLOAD_TOO_LARGE",
      `Proposal ${p.hash} would carry ${total} signatures; the limit is ${limits.signaturesPerCommit} (signaturesPerCommit)`,
      { reason: "limit_exceeded", limit: "signaturesPerCommit", max: limits.signaturesPerCommit, actual: total },
    );
  return added;
}
