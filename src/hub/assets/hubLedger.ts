import type { Caller } from "../../api/Caller.js";
import { isContractError } from "../../contract/ContractError.js";
import type { HubContext } from "../HubContext.js";
import { AssetLedger } from "./AssetLedger.js";

/**
 * The asset ledger of one hub write to contract `id` by `caller`. REPOST sources are read
 * with the caller's read access, so a private source the caller may not read answers like a
 * missing one (-32010, docs/assets.md: no probing); the contract's own values come from
 * `own()`, its state as validated so far (a push's earlier commits included).
 */
export function hubLedger(
  hub: HubContext,
  caller: Caller,
  id: string,
  own: () => ReadonlyMap<string, unknown>,
  creating = false,
): AssetLedger {
  return new AssetLedger({
    store: hub.store,
    ...(creating ? { creating: id } : {}),
    async readSource(source) {
      if (source === id) return own();
      try {
        return (await hub.access(caller, source, "read")).state.data;
      } catch (err) {
        if (isContractError(err, "NOT_FOUND")) return null;
        throw err;
      }
    },
  });
}
