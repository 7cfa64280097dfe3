import type { Caller } from "../../api/Caller.js";
import { ContractError } from "../../contract/ContractError.js";
import { decodeHash } from "../../contract/hex.js";
import { PROPOSAL_STATUSES, type ProposalStatus } from "../../store/ProposalRecord.js";
import type { HubContext } from "../HubContext.js";
import { pageQuery } from "../pageQuery.js";
import { proposalNotFound } from "./proposalErrors.js";
import { type ProposalView, proposalView } from "./proposalView.js";

/** `GET /contracts/:id/proposals`: the contract's proposals of one status (default open), newest first. */
export async function listProposals(
  hub: HubContext,
  caller: Caller,
  id: string,
  q: { status?: unknown; limit?: unknown; offset?: unknown },
): Promise<{ proposals: ProposalView[] }> {
  const status = q.status ?? "open";
  if (!PROPOSAL_STATUSES.includes(status as ProposalStatus))
    throw new ContractError(
      "INVALID_REQUEST",
      `Invalid status ${JSON.stringify(status)}: expected one of ${PROPOSAL_STATUSES.join(", ")}`,
      { reason: "bad_query", field: "status" },
    );
  const { limit, offset } = pageQuery(q);
  const { state } = await hub.access(caller, id, "read");
  const now = hub.now();
  const records = await hub.store.listProposals(id, { status: status as ProposalStatus, now, limit, offset });
  const proposals: ProposalView[] = [];
  const settings = readerSettings(hub, caller);
  for (const r of records) proposals.push(await proposalView(r, state, now, settings));
  return { proposals };
}

/** `GET /contracts/:id/proposals/:hash`. */
export async function getProposal(
  hub: HubContext,
  caller: Caller,
  id: string,
  hash: string,
): Promise<{ proposal: ProposalView }> {
  decodeHash(hash, "hash");
  const { state } = await hub.access(caller, id, "read");
  const found = await hub.store.getProposal(id, hash);
  if (found === null) throw proposalNotFound(id, hash);
  return { proposal: await proposalView(found, state, hub.now(), readerSettings(hub, caller)) };
}

/**
 * A reader's settings for proposal views: each view recomputes `missing` over the transitions
 * leaving the current states, and 100 open proposals on a model leaving its state by 20,000
 * transitions held the event loop ~4 s for one anonymous list. The views yield in slices
 * charged to the reader (admitted at the first slice, so reads on ordinary models never ask).
 */
function readerSettings(hub: HubContext, caller: Caller) {
  return { ...hub.settings, tick: hub.work.ticker(caller) };
}
