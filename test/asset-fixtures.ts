/** Helpers of the asset tests: model-less contracts on a hub and asset operations submitted through it. */
import { isContractError } from "../src/contract/ContractError.js";
import type { Hub } from "../src/hub/Hub.js";
import type { SubmitCommitResult } from "../src/hub/HubApi.js";
import type { Store } from "../src/store/Store.js";
import type { Actor } from "./hub-fixtures.js";

/** Creates model-less contracts `ids` owned by `owner`. */
export async function contracts(hub: Hub, owner: Actor, ...ids: string[]): Promise<void> {
  for (const id of ids) await hub.createContract(owner.caller, { contract_id: id, model: null, rules: [] });
}

/** Submits one operation in the fields form (the hub picks the parent). */
export async function op(
  hub: Hub,
  who: Actor,
  id: string,
  method: string,
  value: unknown,
): Promise<SubmitCommitResult> {
  return (await hub.submitCommit(who.caller, id, { contract_id: id, method, value })).result;
}

/** CREATE `asset_id` in `id`. */
export const create = (hub: Hub, who: Actor, id: string, asset_id: string, quantity: number, divisibility = 1) =>
  op(hub, who, id, "create", { asset_id, quantity, divisibility });

/** SEND from `id`; resolves to the SEND's commit hash. */
export const send = async (hub: Hub, who: Actor, id: string, asset_id: string, to_contract: string, amount: number) =>
  (await op(hub, who, id, "send", { asset_id, to_contract, amount })).commit_hash;

/** RECV of `sendHash` in `id`. */
export const recv = (hub: Hub, who: Actor, id: string, sendHash: string) =>
  op(hub, who, id, "recv", { send_commit_id: sendHash });

/** The `details.rpc_code` of a rejected promise (throws when it did not fail with a ContractError). */
export async function rpcCodeOf(p: Promise<unknown>): Promise<number | string> {
  try {
    await p;
  } catch (err) {
    if (!isContractError(err)) throw err;
    return err.code === "VALIDATION_FAILED" ? Number(err.details?.rpc_code ?? -32005) : err.code;
  }
  return "ok";
}

/** Balances of `id` as `{"issuer/asset": amount}` from the store tables. */
export async function balances(store: Store, id: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const b of (await store.getAssets(id)).balances) out[`${b.issuer}/${b.assetId}`] = b.amount;
  return out;
}
