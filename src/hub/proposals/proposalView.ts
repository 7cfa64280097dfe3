import type { ProposalView } from "../../api/responses.js";
import type { WireCommit } from "../../contract/Commit.js";
import type { ContractState } from "../../contract/ContractState.js";
import { type MissingSignature, proposalMissing } from "../../contract/engine.js";
import { IDENTITY_PREFIX } from "../../contract/hex.js";
import { resolveSignerKey } from "../../contract/verifySigners.js";
import { type ProposalRecord, proposalStatus } from "../../store/ProposalRecord.js";
import { commitStamp } from "../commitStamp.js";
import type { EngineSettings } from "../engineContext.js";

/** The push-format commit a proposal stands for, with the signatures collected so far. */
export function proposalCommit(p: ProposalRecord): WireCommit {
  const head: WireCommit["head"] = { parent: p.parent, signatures: p.signatures };
  if (p.attestations !== undefined) head.attestations = p.attestations;
  return { hash: p.hash, parent: p.parent, data: p.data, head };
}

/**
 * The proposal as a client sees it at `now`: its derived status and, while open, what still
 * blocks it. `missing` is recomputed from the state rather than stored, so it can never
 * disagree with the contract; the stored signatures were verified on arrival and are trusted.
 */
export async function proposalView(
  p: ProposalRecord,
  state: ContractState,
  now: number,
  settings: EngineSettings,
  known?: MissingSignature[],
): Promise<ProposalView> {
  const status = proposalStatus(p, state.head, now);
  let missing: MissingSignature[] = [];
  if (status === "open") {
    const signers = Object.keys(p.signatures).map((signer) => resolveSignerKey(signer, state.data));
    missing =
      known ??
      (await proposalMissing(state, proposalCommit(p), signers, {
        // Judged at the time its commit would be stamped with, as its completion is.
        timestamp: commitStamp(() => now, state),
        wasm: settings.wasm ?? null,
        ...(settings.tick !== undefined ? { tick: settings.tick } : {}),
      }));
  }
  const view: ProposalView = {
    hash: p.hash,
    contract_id: p.contractId,
    parent: p.parent,
    data: p.data,
    signatures: p.signatures,
    status,
    missing,
    proposer: IDENTITY_PREFIX + p.proposer,
    created_at: p.createdAt,
    expires_at: p.expiresAt,
  };
  if (p.attestations !== undefined) view.attestations = p.attestations;
  if (p.commitIndex !== null) view.commit_index = p.commitIndex;
  return view;
}

export type { ProposalView };
