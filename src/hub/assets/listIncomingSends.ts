import type { Caller } from "../../api/Caller.js";
import type { IncomingSendsResult } from "../../api/responses.js";
import { ContractError } from "../../contract/ContractError.js";
import type { HubContext } from "../HubContext.js";
import { pageQuery } from "../pageQuery.js";

/** The `pending` query value: a boolean, or its spelling in a query string. */
function pendingFlag(value: unknown): boolean {
  if (value === undefined || value === false || value === "false") return false;
  if (value === true || value === "true") return true;
  throw new ContractError("INVALID_REQUEST", `Invalid pending: expected true or false, got ${JSON.stringify(value)}`, {
    reason: "bad_query",
    field: "pending",
  });
}

/**
 * `GET /contracts/:id/incoming`: the SENDs addressed to the contract, oldest first (in the
 * order the hub accepted them), each with its receipt if received; `pending` keeps only those
 * not yet received. Whoever may read the recipient may list them: a private recipient answers
 * its non-readers as a missing contract, as every read does.
 */
export async function listIncomingSends(
  hub: HubContext,
  caller: Caller,
  id: string,
  q: { pending?: unknown; limit?: unknown; offset?: unknown },
): Promise<IncomingSendsResult> {
  const pending = pendingFlag(q.pending);
  const { limit, offset } = pageQuery(q);
  await hub.access(caller, id, "read");
  const { sends, total } = await hub.store.listIncomingSends(id, { pending, limit, offset });
  return {
    contract_id: id,
    sends: sends.map((s) => ({
      send_commit_id: s.commitHash,
      from_contract: s.from,
      asset_id: s.assetId,
      issuer: s.issuer,
      amount: s.amount,
      timestamp: s.timestamp,
      leaf_index: s.leafIndex,
      received: s.receivedBy !== null,
      recv_commit_id: s.receivedBy,
    })),
    total,
  };
}
