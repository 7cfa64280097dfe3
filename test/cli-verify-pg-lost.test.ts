/**
 * `contract-hub verify --database-url` when PostgreSQL ends its connection mid-check (a
 * restart, a failover, pg_terminate_backend): a storage fault, reported as one (exit 1,
 * UNAVAILABLE with `details.reason: "storage"`), never a crash on an unheard 'error' event
 * and never a contract or tree reported damaged. Deterministic: the test holds a lock on the
 * table the check reads, waits until verify's query waits for it, then ends that backend.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { PostgresStore } from "../src/store/postgres/PostgresStore.js";
import { cli, tempDir } from "./cli-support.js";
import { created } from "./store-contract.js";
import { testDatabase } from "./support/pg.js";
import { testChain } from "./support/testChain.js";

const db = await testDatabase();
const admin = new pg.Client({ connectionString: db.url, application_name: "verify-lost-test" });
// Watches from outside the locking transaction (a transaction sees one snapshot of pg_stat_activity).
const watcher = new pg.Client({ connectionString: db.url, application_name: "verify-lost-watch" });
const home = tempDir("verify-pg-lost");

before(async () => {
  const store = await PostgresStore.open({ connectionString: db.url });
  for (const id of ["one", "two"]) await store.appendCommits(id, null, testChain(id, 50), created());
  await store.close();
  // The test database is dropped (WITH FORCE) before these end: heard, that is no failure.
  for (const c of [admin, watcher]) c.on("error", () => {});
  await admin.connect();
  await watcher.connect();
});
after(async () => Promise.all([admin.end(), watcher.end()]));

/** Runs verify while `table` is locked, ends the backend whose query (`like`) waits for it. */
async function verifyCutAt(table: string, like: string) {
  await admin.query("BEGIN");
  await admin.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  const run = cli(["verify", "--database-url", db.url, "--json"], { cwd: home, home });
  try {
    for (;;) {
      const { rows } = await watcher.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND query LIKE $2 AND application_name NOT LIKE 'verify-lost-%'",
        [db.name, like],
      );
      if (rows.length > 0) {
        await watcher.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
        break;
      }
      await new Promise((ok) => setTimeout(ok, 20));
    }
  } finally {
    await admin.query("ROLLBACK");
  }
  return run;
}

describe("verify --database-url loses its connection", () => {
  for (const [where, table, like] of [
    ["while it lists the contracts", "contracts", "SELECT id FROM contracts%"],
    ["while it reads a contract's commits", "commits", "%FROM commits%"],
  ] as const) {
    it(`${where}: exit 1, UNAVAILABLE storage, no crash`, async () => {
      const r = await verifyCutAt(table, like);
      assert.equal(r.code, 1, r.stderr);
      const doc = r.json<{ code: string; details: { reason: string; storage: string } }>();
      assert.deepEqual([doc.code, doc.details.reason, doc.details.storage], ["UNAVAILABLE", "storage", "unreachable"]);
    });
  }
});
