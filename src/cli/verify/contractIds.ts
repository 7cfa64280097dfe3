/**
 * Every contract id in a hub's database, private ones included. The Store interface only
 * lists what an identity may see, and an fsck must see everything; until the store offers
 * `listContractIds()`, this reads the one column it needs directly (same table in SQLite and
 * PostgreSQL, src/store/sqlite/migrations.ts).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import Database from "../../store/sqlite/Database.js";

/** Where the hub's data lives (the `start` flags). */
export interface StoreLocation {
  dataDir: string;
  databaseUrl?: string | null;
}

/** The SQLite file of a data directory (SqliteStore's name for it). */
export function sqlitePath(dataDir: string): string {
  return join(dataDir, "hub.sqlite");
}

/** Contract ids, oldest first. */
export async function listContractIds(location: StoreLocation): Promise<string[]> {
  const order = "SELECT id FROM contracts ORDER BY created_at, id";
  if (location.databaseUrl) {
    const client = new pg.Client({ connectionString: location.databaseUrl });
    // A connection the server ends (restart, failover, pg_terminate_backend) emits 'error'
    // besides failing the query under way; unheard, it would end the process. Heard, the
    // query fails on its own and verify reports the storage fault.
    client.on("error", () => {});
    await client.connect();
    try {
      return (await client.query<{ id: string }>(order)).rows.map((r) => r.id);
    } finally {
      await client.end();
    }
  }
  const file = sqlitePath(location.dataDir);
  if (!existsSync(file)) return [];
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(order).all() as { id: string }[]).map((r) => r.id);
  } finally {
    db.close();
  }
}
