/**
 * Whether an asset exists in this contract is in its own log, so a CREATE that the hub would
 * refuse as a duplicate (-32040) is refused here, before it is written: one such commit would
 * sink every push of the working copy (a push is atomic).
 */
import type { CreateValue } from "../../contract/Commit.js";
import { ContractError } from "../../contract/ContractError.js";
import type { StoredCommit } from "../../contract/StoredCommit.js";
import { shortHash } from "../hashPrefix.js";

/** Refuses a CREATE of `assetId` in contract `id` when `log` (the first `pushed` commits are on the hub) already creates it. */
export function checkCreateLocally(id: string, log: readonly StoredCommit[], pushed: number, assetId: string): void {
  for (const c of log) {
    for (const op of c.data) {
      if (op.method !== "create" || (op.value as CreateValue).asset_id !== assetId) continue;
      const where = `commit ${c.index} of this working copy${c.index >= pushed ? ", not pushed" : ""}`;
      throw new ContractError(
        "VALIDATION_FAILED",
        `CREATE rejected: asset ${JSON.stringify(assetId)} already exists in contract ${id} (created by ${shortHash(c.hash)}, ${where})`,
        { reason: "asset_exists", rpc_code: -32040, asset_id: assetId, created_by: c.hash },
      );
    }
  }
}
