import type { Caller } from "../../api/Caller.js";
import type { AssetsResult } from "../../api/responses.js";
import type { HubContext } from "../HubContext.js";
import { MAX_PAGE, pageQuery } from "../pageQuery.js";

/**
 * `GET /contracts/:id/assets` and JSON-RPC `getAssets`: a page of the assets the contract
 * created (by asset id) and of the balances it holds (by issuer, then asset id), each list
 * `limit` long from `offset`, with each list's total so a client knows whether to ask again.
 * A contract can create 64 assets a commit, so an unpaged answer grew without bound and, read
 * on the event loop, stalled every other request (docs/assets.md). The default page is the
 * largest, so an ordinary contract's books still come whole in one answer.
 */
export async function readAssetsPage(
  hub: HubContext,
  caller: Caller,
  id: string,
  q: { limit?: unknown; offset?: unknown },
): Promise<AssetsResult> {
  const page = pageQuery(q, MAX_PAGE);
  await hub.access(caller, id, "read");
  const books = await hub.store.getAssetsPage(id, page);
  return {
    contract_id: id,
    assets: books.assets.map((a) => ({
      asset_id: a.assetId,
      issuer: a.issuer,
      quantity: a.quantity,
      divisibility: a.divisibility,
    })),
    balances: books.balances.map((b) => ({ asset_id: b.assetId, issuer: b.issuer, amount: b.amount })),
    assets_total: books.assetsTotal,
    balances_total: books.balancesTotal,
  };
}
