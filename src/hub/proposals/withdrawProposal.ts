import type { Caller } from "../../api/Caller.js";
import { ContractError } from "../../contract/ContractError.js";
import { decodeHash } from "../../contract/hex.js";
import { proposalStatus } from "../../store/ProposalRecord.js";
import type { HubContext } from "../HubContext.js";
import { proposalNotFound } from "./proposalErrors.js";
import { type ProposalView, proposalView } from "./proposalView.js";

/**
 * `DELETE /contracts/:id/proposals/:hash`: its proposer or the contract's owner withdraws a
 * proposal that has not been committed (anyone else who can see it: 403). Withdrawing a
 * withdrawn one answers it again; a committed one is 409.
 */
export async function withdrawProposal(
  hub: HubContext,
  caller: Caller,
  id: string,
  hash: string,
): Promise<{ proposal: ProposalView }> {
  decodeHash(hash, "hash");
  if (caller.identity === null)
    throw new ContractError("UNAUTHORIZED", "Authentication is required to withdraw a proposal", {
      reason: "unauthenticated",
    });
  return hub.locks.run(id, async () => {
    const { state, record } = await hub.access(caller, id, "read");
    const found = await hub.store.getProposal(id, hash);
    if (found === null) throw proposalNotFound(id, hash);
    if (found.proposer !== caller.identity && record.owner !== caller.identity)
      throw new ContractError("FORBIDDEN", "Only the proposer or the contract's owner can withdraw a proposal", {
        reason: "not_proposer",
      });
    if (proposalStatus(found, state.head, hub.now()) === "committed") throw committed(hash);
    const changed = found.status === "open";
    const after = changed ? (await hub.store.withdrawProposal(id, hash))! : found;
    // Another hub instance (its own lock) may have appended it since it was read.
    if (after.status === "committed") throw committed(hash);
    const proposal = await proposalView(after, state, hub.now(), hub.settings);
    if (changed) hub.bus.publishProposal(id, proposal);
    return { proposal };
  });
}

const committed = (hash: string) =>
  new ContractError("CONFLICT", `Proposal ${hash} is committed: it can no longer be withdrawn`, {
    reason: "proposal_committed",
    status: "committed",
  });
