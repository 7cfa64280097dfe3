import type { Caller } from "../../api/Caller.js";
import type { SubmitCommitResult } from "../../api/responses.js";
import { ContractError } from "../../contract/ContractError.js";
import { typeName } from "../../contract/hex.js";
import { DEFAULT_LIMITS } from "../../contract/limits.js";
import { validateCommitShape } from "../../contract/validateCommitShape.js";
import { keepsExisting, type ProposalRecord } from "../../store/ProposalRecord.js";
import type { HubContext } from "../HubContext.js";
import { decideUnderLock } from "./decideUnderLock.js";
import { type ProposalView, proposalView } from "./proposalView.js";

export interface ProposeResult {
  proposal: ProposalView;
  commit?: SubmitCommitResult;
  /** False when an open or committed proposal of that hash answered (200 rather than 201). */
  created: boolean;
}

/**
 * `POST /contracts/:id/proposals`: a writer proposes a push-format commit that may still lack
 * signatures. It is validated in full except that a signature predicate failing only for want
 * of signatures counts as satisfiable; a commit that already validates is appended at once.
 */
export async function proposeCommit(
  hub: HubContext,
  caller: Caller,
  id: string,
  body: { commit?: unknown },
): Promise<ProposeResult> {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new ContractError("INVALID_REQUEST", `Invalid body: expected an object, got ${typeName(body)}`, {
      reason: "body_not_object",
    });
  if (body.commit === undefined)
    throw new ContractError("INVALID_REQUEST", "A proposal needs `commit`, a push-format commit", {
      reason: "commit_required",
      field: "commit",
    });
  const limits = hub.settings.limits ?? DEFAULT_LIMITS;
  // Big model texts are parsed in slices first; the shape check finds them parsed.
  await hub.work.preparse(caller, [body.commit], limits, id);
  return hub.locks.run(id, async () => {
    const { state } = await hub.access(caller, id, "write");
    const commit = validateCommitShape(body.commit, { contractId: id, limits });
    const now = hub.now();
    const existing = await hub.store.getProposal(id, commit.hash);
    if (existing !== null && keepsExisting(existing, state.head, now))
      return { proposal: await proposalView(existing, state, now, hub.settings), created: false };
    const record: ProposalRecord = {
      contractId: id,
      hash: commit.hash,
      parent: commit.parent ?? "",
      data: commit.data,
      signatures: commit.head.signatures,
      status: "open",
      proposer: caller.identity!,
      createdAt: now,
      expiresAt: now + limits.proposalLifetimeSeconds,
      commitIndex: null,
    };
    if (commit.head.attestations !== undefined && commit.head.attestations.length > 0)
      record.attestations = commit.head.attestations;
    // Decided before it is stored: a proposal nobody could complete is refused, not kept.
    let created = true;
    const outcome = await decideUnderLock(hub, caller, id, state, commit, async () => {
      ({ created } = await hub.store.saveProposal(record, { maxOpen: limits.openProposals, now }));
    });
    const stored = (await hub.store.getProposal(id, commit.hash))!;
    // Another hub instance (its own lock) stored this proposal after it was read above: it
    // answers as a re-proposal does (200), and that instance announced it.
    if (!created && !("committed" in outcome))
      return { proposal: await proposalView(stored, state, now, hub.settings), created: false };
    const proposal = await proposalView(
      stored,
      state,
      now,
      hub.settings,
      "missing" in outcome ? outcome.missing : undefined,
    );
    hub.bus.publishProposal(id, proposal);
    return "committed" in outcome
      ? { proposal, commit: outcome.committed, created: true }
      : { proposal, created: true };
  });
}
