import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store } from "../src/store/Store.js";
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { storeContractSuite } from "./store-contract.js";

const dirs: string[] = [];

storeContractSuite(
  "SqliteStore",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "store-contract-"));
    dirs.push(dir);
    return SqliteStore.open({ dataDir: dir });
  },
  async () => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  },
  {
    reopen: async (store: Store) => {
      const dir = (store as SqliteStore).path.replace(/[/\\]hub\.sqlite$/, "");
      await store.close();
      return SqliteStore.open({ dataDir: dir });
    },
    uniqueViolation: "SQLITE_CONSTRAINT_UNIQUE",
  },
);
