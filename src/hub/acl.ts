import type { Caller } from "../api/Caller.js";
import type { ContractState } from "../contract/ContractState.js";
import { dataWrites } from "../contract/dataWrites.js";
import { isLowerHex } from "../contract/hex.js";
import type { StoredCommit } from "../contract/StoredCommit.js";
import type { ContractRecord, GrantRole, PartyPath } from "../store/Store.js";

/** Everything an access decision about one contract needs. */
export interface AccessFacts {
  record: ContractRecord;
  state: ContractState;
  /** The caller's grant on the contract, or null. */
  grant: GrantRole | null;
}

/** True when `identity` (hex) is stored at an `.id` path of the state: a party of the contract. */
export function isParty(state: ContractState, identity: string): boolean {
  for (const [path, value] of state.data) if (path.endsWith(".id") && value === identity) return true;
  return false;
}

/** docs/api.md: public contracts are readable by anyone; private ones by owner, writers, parties and readers. */
export function canRead(caller: Caller, facts: AccessFacts): boolean {
  if (!facts.record.private) return true;
  if (caller.identity === null) return false;
  return facts.grant !== null || canWrite(caller, facts);
}

/** docs/api.md: writers are the owner, identities granted `writer`, and the parties. */
export function canWrite(caller: Caller, facts: AccessFacts): boolean {
  const id = caller.identity;
  if (id === null) return false;
  return facts.record.owner === id || facts.grant === "writer" || isParty(facts.state, id);
}

/** The identities `commits` store at `.id` paths, one entry per path (the last write wins, as in the state). */
export function partyPaths(commits: readonly StoredCommit[]): PartyPath[] {
  const latest = new Map<string, string>();
  for (const c of commits) {
    for (const [path, value] of dataWrites(c.data)) {
      if (path.endsWith(".id") && isLowerHex(value, 32)) latest.set(path, value as string);
    }
  }
  return [...latest].map(([path, identity]) => ({ path, identity }));
}
