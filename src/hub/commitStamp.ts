import type { ContractState } from "../contract/ContractState.js";

/**
 * The receipt time the hub gives the next commit of the contract at `state` (null for a new
 * contract): this instance's clock, but never earlier than the head's stored timestamp
 * (docs/protocol.md, "Commit timestamps"). Instances sharing one database each read their own
 * clock, and a clock can step back (NTP); without the floor, a commit appended by a slower
 * clock could pass a `before` deadline its parent's time had already passed. The state is the
 * one the append is checked against (its head is the parent), so its head time is the parent's.
 */
export function commitStamp(now: () => number, state: ContractState | null): number {
  const clock = now();
  return state === null ? clock : Math.max(clock, state.headTimestamp);
}
