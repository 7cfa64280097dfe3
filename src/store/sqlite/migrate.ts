import { ContractError } from "../../contract/ContractError.js";
import type Database from "./Database.js";
import { MIGRATIONS, SCHEMA_VERSION } from "./migrations.js";

/** The schema version a store file is at (0 for a new one), read without writing. */
export function schemaVersion(db: Database.Database): number {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
  if (table === undefined) return 0;
  return (db.prepare("SELECT MAX(version) AS v FROM schema_version").get() as { v: number | null }).v ?? 0;
}

/**
 * Brings the database to SCHEMA_VERSION (or to `upTo`, older: how tests build the database an
 * older hub left). Runs under `BEGIN IMMEDIATE` so two processes opening the same file at
 * once cannot both apply a migration; refuses a database written by a newer version rather
 * than guessing.
 */
export function migrate(db: Database.Database, now: number, upTo = SCHEMA_VERSION): number {
  db.exec("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)");
  const run = db.transaction(() => {
    const row = db.prepare("SELECT MAX(version) AS v FROM schema_version").get() as { v: number | null };
    const current = row.v ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new ContractError(
        "INTERNAL",
        `Cannot open store: schema version ${current} is newer than this hub's ${SCHEMA_VERSION}`,
        { reason: "schema_too_new", version: current },
      );
    }
    for (const m of MIGRATIONS) {
      if (m.version <= current || m.version > upTo) continue;
      for (const sql of m.statements) db.exec(sql);
      db.prepare("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)").run(m.version, now);
    }
    return Math.max(current, upTo);
  });
  return run.immediate();
}
