import { Hub, type HubOptions } from "../../src/hub/Hub.js";
import type { Store } from "../../src/store/Store.js";
import { SqliteStore } from "../../src/store/sqlite/SqliteStore.js";

/**
 * A hub over a SQLite store in `dataDir`, closed with the hub. `wrapStore` puts a test's
 * wrapper (counting or holding some calls) between the hub and the real store.
 */
export async function openSqliteHub(
  options: Omit<HubOptions, "store"> & { dataDir: string; wrapStore?: (store: Store) => Store },
): Promise<Hub> {
  const { dataDir, wrapStore, ...rest } = options;
  const store = await SqliteStore.open({ dataDir });
  return new Hub({ ...rest, store: wrapStore ? wrapStore(store) : store }, true);
}
