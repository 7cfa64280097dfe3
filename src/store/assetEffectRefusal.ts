import { ContractError } from "../contract/ContractError.js";
import type { AssetEffect } from "./Store.js";

/**
 * VALIDATION_FAILED for an asset effect a store's constraints refused inside the append
 * (docs/assets.md): the backstop when two requests race past the asset engine's checks. Both
 * stores refuse alike, and name the commit that carried the effect (`details.commit_hash`),
 * so a push refused this way says which of its commits lost the race.
 */
export function assetEffectRefusal(e: AssetEffect, reason: string, rpcCode: number, id: string): ContractError {
  return new ContractError("VALIDATION_FAILED", `${e.kind.toUpperCase()} rejected: ${reason}`, {
    reason: id,
    rpc_code: rpcCode,
    commit_hash: e.kind === "recv" ? e.recvCommitHash : e.commitHash,
  });
}
