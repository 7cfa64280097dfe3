/**
 * The asset rules shared by the hub's ledger (validation before an append) and the invariant
 * check (recomputation from the logs): the error form of docs/api.md, and (re-exported from
 * src/contract, where the CLI's `send` reads it too) how a SEND's `asset_id` names an asset
 * (docs/assets.md). Every side must resolve a SEND identically, so that rule lives there once.
 */
import { ContractError } from "../../contract/ContractError.js";
import type { AssetKey } from "../../contract/resolveSendAsset.js";

export {
  type AssetKey,
  type Holdings,
  notHeldReason,
  resolveSendAsset,
} from "../../contract/resolveSendAsset.js";

export type AssetOperationName = "CREATE" | "SEND" | "RECV" | "REPOST";

/** Throws the asset failure of docs/api.md: 422 `"<OPERATION> rejected: <reason>"` with `details.rpc_code`. */
export function assetReject(
  operation: AssetOperationName,
  reason: string,
  rpcCode: number,
  id: string,
  extra: Record<string, unknown> = {},
): never {
  throw new ContractError("VALIDATION_FAILED", `${operation} rejected: ${reason}`, {
    reason: id,
    rpc_code: rpcCode,
    ...extra,
  });
}

/** `issuer/asset_id`, the form messages and map keys use. */
export function assetName(key: AssetKey): string {
  return `${key.issuer}/${key.assetId}`;
}
