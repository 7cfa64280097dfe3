import { Hub, type HubOptions } from "../../src/hub/Hub.js";
import { SqliteStore } from "../../src/store/sqlite/SqliteStore.js";

/** A hub over a SQLite store in `dataDir`, closed with the hub. */
export async function openSqliteHub(options: Omit<HubOptions, "store"> & { dataDir: string }): Promise<Hub> {
  const { dataDir, ...rest } = options;
  const store = await SqliteStore.open({ dataDir });
  return new Hub({ ...rest, store }, true);
}
