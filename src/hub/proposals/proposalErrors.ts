import { ContractError } from "../../contract/ContractError.js";
import type { ProposalStatus } from "../../store/ProposalRecord.js";

export const proposalNotFound = (id: string, hash: string) =>
  new ContractError("NOT_FOUND", `Proposal ${hash} not found in contract ${id}`, { reason: "proposal_not_found" });

/** A proposal that can no longer change: 409 naming its status (`proposal_stale`, `proposal_withdrawn`, …). */
export const proposalClosed = (hash: string, status: ProposalStatus, head?: string) =>
  new ContractError("CONFLICT", `Proposal ${hash} is ${status}: it can no longer be signed`, {
    reason: `proposal_${status}`,
    status,
    ...(head !== undefined && status === "stale" ? { head } : {}),
  });
