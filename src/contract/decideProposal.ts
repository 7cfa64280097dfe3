/**
 * The engine's decision on a proposal: a commit that may still lack signatures. It is judged
 * like any commit, except that a required signature predicate that fails only for want of
 * signatures counts as satisfiable; `missing` then says whose signatures would complete it.
 */

import { acceptCommit, type StateDelta } from "./acceptCommit.js";
import type { WireCommit } from "./Commit.js";
import { isContractError } from "./ContractError.js";
import type { ContractState } from "./ContractState.js";
import type { EngineContext } from "./EngineContext.js";
import { DEFAULT_LIMITS } from "./limits.js";
import { countableSigners, type MissingSignature, missingSignatures } from "./missingSignatures.js";
import { actionLabelsOf, type StoredCommit } from "./StoredCommit.js";
import { commitFacts } from "./step.js";
import { validateCommitShape } from "./validateCommitShape.js";
import { verifyAttestations, verifySigners } from "./verifySigners.js";

export type ProposalDecision =
  /** Every predicate holds: the commit can be appended as it is. */
  | { complete: true; commit: WireCommit; stored: StoredCommit; delta: StateDelta }
  /** Valid except for signatures; `signers` are the keys whose signatures verified. */
  | { complete: false; commit: WireCommit; signers: string[]; missing: MissingSignature[] };

/**
 * Decides `raw` as a proposal for the next commit of `state`. Throws the ContractError a commit
 * would get for anything but missing signatures (shape 400, parent 409, a signature present
 * that does not verify, no transition even with every signature, a rule, an asset check: 422).
 * Asset hooks run at most once per call: the first, full attempt fails before them when a
 * signature is missing, and only then is the commit judged again "except for signatures".
 */
export async function decideProposal(
  state: ContractState,
  raw: unknown,
  ctx: EngineContext,
): Promise<ProposalDecision> {
  const commit = ctx.prevalidated
    ? (raw as WireCommit)
    : validateCommitShape(raw, { contractId: state.contractId, limits: ctx.limits ?? DEFAULT_LIMITS });
  // Signatures and attestations are verified once for both judgements below (a stale parent
  // is left for acceptCommit to report first, as for any commit). An attestation's signed
  // message covers its whole value: a big one is hashed ahead in slices, once, and its second
  // verification hashed it again in one piece (15 MB of strings, 70-200 ms).
  const onHead = commit.parent === state.head;
  const verifiedSigners =
    ctx.verifiedSigners ?? (onHead ? await verifySigners(commit, state.data, ctx.verifyOnThreadpool === true) : []);
  const attested = !ctx.trusted && onHead && (commit.head.attestations?.length ?? 0) > 0;
  const verifiedAttestations =
    ctx.verifiedAttestations ?? (attested ? await verifyAttestations(state.contractId, commit) : undefined);
  const shaped = {
    ...ctx,
    prevalidated: true,
    verifiedSigners,
    ...(verifiedAttestations !== undefined ? { verifiedAttestations } : {}),
  };
  let firstError: unknown;
  try {
    const { stored, delta } = await acceptCommit(state, commit, shaped);
    return { complete: true, commit, stored, delta };
  } catch (err) {
    if (!isContractError(err, "VALIDATION_FAILED") || err.details?.reason !== "no_transition") throw err;
    firstError = err;
  }
  const { stored } = await acceptCommit(state, commit, { ...shaped, optimisticSignatures: true });
  const missing = await proposalMissing(state, commit, stored.signers, ctx);
  // Only a custom predicate that reads the signer list could enable a transition here and not
  // above; such a commit is not waiting for signatures, so it keeps its first answer.
  if (missing.length === 0) throw firstError;
  return { complete: false, commit, signers: stored.signers, missing };
}

/** The facts of `commit` as the next commit of `state`, given the keys whose signatures it holds. */
function proposalFacts(
  state: ContractState,
  commit: WireCommit,
  signers: readonly string[],
  ctx: Pick<EngineContext, "timestamp" | "wasm" | "tick">,
  optimisticSignatures: boolean,
) {
  const base = {
    contractId: state.contractId,
    hash: commit.hash,
    parent: commit.parent,
    input: {
      data: state.data,
      ops: commit.data,
      signers: new Set(signers),
      attestations: commit.head.attestations ?? [],
      timestamp: ctx.timestamp,
    },
    wasm: ctx.wasm ?? null,
    ...(optimisticSignatures ? { optimisticSignatures } : {}),
    ...(ctx.tick !== undefined ? { tick: ctx.tick } : {}),
  };
  return commitFacts(base, actionLabelsOf(commit.data));
}

/**
 * `missing` of a proposal of the next commit of `state`, given the keys whose signatures it
 * holds (verified on arrival): the signature predicates of the cheapest transition it could take.
 */
export function proposalMissing(
  state: ContractState,
  commit: WireCommit,
  signers: readonly string[],
  ctx: Pick<EngineContext, "timestamp" | "wasm" | "tick">,
): Promise<MissingSignature[]> {
  return missingSignatures(
    state,
    proposalFacts(state, commit, signers, ctx, false),
    proposalFacts(state, commit, signers, ctx, true),
  );
}

/**
 * The keys whose signatures a proposal of the next commit of `state` could count, were it to
 * hold the signatures of `signers` (those collected and those being added): the members of the
 * required signature predicates of the transitions it could still take (countableSigners).
 */
export function proposalCountable(
  state: ContractState,
  commit: WireCommit,
  signers: readonly string[],
  ctx: Pick<EngineContext, "timestamp" | "wasm" | "tick">,
): Promise<Set<string>> {
  return countableSigners(state, proposalFacts(state, commit, signers, ctx, true));
}
