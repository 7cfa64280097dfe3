import type { Store } from "../../store/Store.js";
import { type AssetInvariantReport, checkAssetInvariants } from "./checkAssetInvariants.js";

/** The damage shape of the store verifier's per-contract checks (src/cli/verify/verifyStore.ts StoreCheck). */
export interface AssetDamage {
  index: number | null;
  hash?: string;
  message: string;
}

/**
 * The asset invariants as a per-contract verify check (the StoreCheck seam of
 * src/cli/verify/verifyStore.ts, typed structurally so the hub does not depend on the CLI).
 * The invariants are global, so the check runs once over `ids` (every contract of the store)
 * and then answers, per contract, the first issue located in it.
 */
export function assetStoreCheck(ids: readonly string[]): {
  name: string;
  check(store: Store, contractId: string): Promise<AssetDamage | null>;
} {
  let report: Promise<AssetInvariantReport> | undefined;
  return {
    name: "assets",
    async check(store, contractId) {
      report ??= checkAssetInvariants(store, ids);
      const issue = (await report).issues.find((i) => i.contract_id === contractId);
      if (issue === undefined) return null;
      return { index: issue.index ?? null, ...(issue.hash ? { hash: issue.hash } : {}), message: issue.message };
    },
  };
}
