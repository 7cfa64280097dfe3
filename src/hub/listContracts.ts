import type { Caller } from "../api/Caller.js";
import type { ListContractsResult, ListedContract, ListedState } from "../api/responses.js";
import type { ListContractsQuery } from "../api/schemas.js";
import { ContractError, isContractError } from "../contract/ContractError.js";
import { IDENTITY_PREFIX } from "../contract/hex.js";
import type { ContractRecord } from "../store/Store.js";
import type { HubContext } from "./HubContext.js";
import { pageQuery } from "./pageQuery.js";

/**
 * `GET /contracts` and JSON-RPC `listContracts`: a page of the contracts the caller may read,
 * oldest first; with `include=state`, each one's current state too, so a list needs one request
 * instead of one per row.
 */
export async function listContracts(
  hub: HubContext,
  caller: Caller,
  q: ListContractsQuery,
): Promise<ListContractsResult> {
  const withStates = includesState(q.include);
  const { limit, offset } = pageQuery(q);
  const { contracts, total } = await hub.store.listContracts({ identity: caller.identity, limit, offset });
  const listed = contracts.map(listedContract);
  if (withStates) await addStates(hub, caller, contracts, listed);
  return { contracts: listed, total };
}

function listedContract(c: ContractRecord): ListedContract {
  return {
    contract_id: c.id,
    owner: IDENTITY_PREFIX + c.owner,
    created_at: c.createdAt,
    head: c.head,
    commit_count: c.length,
    private: c.private,
  };
}

/** `include`: absent, or `state` (the one thing a list can include); anything else is 400 `bad_query`. */
function includesState(include: unknown): boolean {
  if (include === undefined) return false;
  if (include === "state") return true;
  throw new ContractError("INVALID_REQUEST", `Invalid include ${JSON.stringify(include)}: expected state`, {
    reason: "bad_query",
    field: "include",
  });
}

/**
 * Fills `listed[i].state` with the state of `records[i]`, read at the listed head. A state not
 * in memory is loaded from its snapshot or replayed: expensive work a page of up to 1,000 cold
 * contracts multiplies, so each such load first asks the caller's work budget (429
 * `work_budget` once it is spent: a request overdraws by one load at most) and runs in slices
 * charged to the caller as it goes. States in memory cost nothing and ask nothing. Access is
 * checked again on the state, as every read checks it: a contract the caller can no longer read
 * (a grant withdrawn since the page was read) gets `state: null`, never its state.
 */
async function addStates(
  hub: HubContext,
  caller: Caller,
  records: readonly ContractRecord[],
  listed: ListedContract[],
): Promise<void> {
  const slice = hub.work.slice(caller);
  for (const [i, record] of records.entries()) {
    try {
      if (!hub.holdsState(record)) hub.work.admit(caller);
      listed[i]!.state = await readableState(hub, caller, record, slice.tick);
    } finally {
      // Charged after each contract, so the next cold load's admission counts this one.
      slice.done();
    }
  }
}

async function readableState(
  hub: HubContext,
  caller: Caller,
  record: ContractRecord,
  tick: () => Promise<void>,
): Promise<ListedState | null> {
  try {
    const { state } = await hub.accessTo(caller, record, "read", tick);
    return { current_state: state.currentStateName, current_states: [...state.currentStateNames] };
  } catch (err) {
    if (isContractError(err, "NOT_FOUND")) return null;
    throw err;
  }
}
