import type { ClientBase } from "pg";
import { ContractError } from "../../contract/ContractError.js";
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from "./migrations.js";

/**
 * Advisory lock key of migrations ("ch-migr" as bytes). Every instance takes it before
 * looking at `schema_version`, so instances starting at once apply a migration exactly
 * once and none reads a half-built schema.
 */
const MIGRATION_LOCK = 0x63682d6d696772n;

/**
 * Brings `schema` (created if missing; default: the search_path's) to PG_SCHEMA_VERSION (or to
 * `upTo`, older: how tests build the database an older hub left) in one transaction under
 * the migration lock; refuses a database written by a newer hub. Returns the version.
 */
export async function migratePg(
  client: ClientBase,
  now: number,
  schema?: string,
  upTo = PG_SCHEMA_VERSION,
): Promise<number> {
  await client.query("BEGIN");
  try {
    // Transaction-scoped: released by COMMIT or ROLLBACK, even if this process dies.
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK.toString()]);
    // Under the lock too: concurrent `CREATE SCHEMA IF NOT EXISTS` can still collide.
    if (schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(
      "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)",
    );
    const { rows } = await client.query<{ v: number | null }>("SELECT MAX(version) AS v FROM schema_version");
    const current = rows[0]?.v ?? 0;
    if (current > PG_SCHEMA_VERSION) {
      throw new ContractError(
        "INTERNAL",
        `Cannot open store: schema version ${current} is newer than this hub's ${PG_SCHEMA_VERSION}`,
        { reason: "schema_too_new", version: current },
      );
    }
    for (const m of PG_MIGRATIONS) {
      if (m.version <= current || m.version > upTo) continue;
      for (const sql of m.statements) await client.query(sql);
      await client.query("INSERT INTO schema_version (version, applied_at) VALUES ($1, $2)", [m.version, now]);
    }
    await client.query("COMMIT");
    return Math.max(current, upTo);
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  }
}
