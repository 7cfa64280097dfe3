import type { Caller } from "../../api/Caller.js";
import type { SubmitCommitResult } from "../../api/responses.js";
import type { WireCommit } from "../../contract/Commit.js";
import type { ContractState } from "../../contract/ContractState.js";
import { applyDelta, decideProposal, type MissingSignature, stateView } from "../../contract/engine.js";
import { leafOf } from "../../contract/StoredCommit.js";
import { hubLedger } from "../assets/hubLedger.js";
import { commitStamp } from "../commitStamp.js";
import { engineContext } from "../engineContext.js";
import type { HubContext } from "../HubContext.js";

/** What deciding a proposal's commit came to: appended (with the commit result), or still missing signatures. */
export type Outcome = { committed: SubmitCommitResult } | { missing: MissingSignature[]; signers: string[] };

/**
 * Decides `commit` (a proposal with the signatures collected so far) against `state`, under the
 * caller's contract lock, and appends it when it validates in full, marking the proposal
 * committed in the same transaction. The store's head check makes the append happen once even
 * when signers on several hub instances complete the proposal at the same moment: the others
 * get CONFLICT and find it committed.
 */
export async function decideUnderLock(
  hub: HubContext,
  caller: Caller,
  id: string,
  state: ContractState,
  commit: WireCommit,
  /** Runs once the commit is decided, before it is appended (a new proposal is stored here). */
  decided: () => Promise<unknown> = async () => {},
  /** Keys of signatures verified already (a proposal's, on arrival): not verified again. */
  verifiedSigners?: string[],
  /** Whose work budget pays (default `caller`): the uploader of a signature, not the proposer it is judged as. */
  payer: Caller = caller,
): Promise<Outcome> {
  const ledger = hubLedger(hub, caller, id, () => state.data);
  const ctx = engineContext(
    hub.store,
    id,
    state.length,
    [],
    // The request's: its model checks, compiles and replays share one budget and are charged
    // to whoever sent it, as a commit's are.
    Object.assign({}, hub.settings, { assets: ledger }, hub.work.forRequest(payer)),
    { timestamp: commitStamp(hub.now, state), ...(verifiedSigners !== undefined ? { verifiedSigners } : {}) },
  );
  const decision = await decideProposal(state, commit, ctx);
  await decided();
  if (!decision.complete) return { missing: decision.missing, signers: decision.signers };
  const { stored, delta } = decision;
  await hub.append(
    id,
    state.head,
    [stored],
    ledger.extras({ proposal: { hash: stored.hash, signatures: stored.signatures } }),
  );
  applyDelta(state, delta);
  hub.appended(state, 1);
  const view = stateView(state);
  // The proposal is announced committed by the operation that completed it.
  hub.publish(id, [stored], [view], "proposal");
  return {
    committed: {
      commit_hash: stored.hash,
      index: stored.index,
      new_state: view,
      timestamp: stored.timestamp,
      ...leafOf(stored),
    },
  };
}
