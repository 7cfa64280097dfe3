/**
 * The proposal changes no request makes (docs/proposals.md, "Events"): a proposal turns
 * `stale` when the head moves past its parent, and `expired` when its lifetime ends.
 * Subscribers are told of every change of a proposal, these two included, so the hub
 * announces them itself: stale ones after each append it publishes (its own, or another
 * instance's relayed to it), expired ones on a periodic sweep.
 */
import type { ProposalRecord, ProposalStatus } from "../../store/ProposalRecord.js";
import type { HubContext } from "../HubContext.js";
import { proposalView } from "./proposalView.js";

/** Past the per-contract cap of open proposals, so one page holds every candidate. */
const PAGE = 1000;

async function announce(hub: HubContext, id: string, status: ProposalStatus, pick: (p: ProposalRecord) => boolean) {
  const now = hub.now();
  const listed = await hub.store.listProposals(id, { status, now, limit: PAGE, offset: 0 });
  const changed = listed.filter(pick);
  if (changed.length === 0) return 0;
  const record = await hub.store.getContract(id);
  if (record === null) return 0;
  // The hub's own read: each listener was checked for read access when it subscribed.
  const state = await hub.stateOf(record);
  for (const p of changed) hub.bus.publishProposal(id, await proposalView(p, state, now, hub.settings));
  return changed.length;
}

/**
 * After an append moved the head of `id` from `before`: the proposals that were open on
 * `before` are stale now (older ones were announced when they went stale).
 */
export function announceStale(hub: HubContext, id: string, before: string | null): void {
  if (before === null || !hub.bus.hasProposalListeners(id)) return;
  announce(hub, id, "stale", (p) => p.parent === before).catch(hub.onError);
}

/**
 * The proposals whose lifetime ended in (`since`, `now`], of the contracts someone listens
 * to; returns how many were announced. Each instance announces to its own subscribers.
 */
export async function announceExpired(hub: HubContext, since: number, now: number): Promise<number> {
  let count = 0;
  for (const id of hub.bus.proposalContracts()) {
    count += await announce(hub, id, "expired", (p) => p.expiresAt > since && p.expiresAt <= now);
  }
  return count;
}
