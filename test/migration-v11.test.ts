/**
 * Schema version 11 on both dialects (docs/storage.md): each SEND keeps its commit's leaf, and
 * a contract's incoming SENDs are read in order from the index on (to_contract, leaf_index),
 * so a page does not join and sort every SEND addressed to the contract (PROTOCOL.md §18: a
 * recipient flooded with 1-unit SENDs made every page read all of them). A database an older
 * hub left at version 10, holding SENDs, gets their leaves when this code opens it, also when
 * its commits have no leaves yet (a data directory older than the tree); the hub lists them
 * in the same order, and a SEND it stores after gets its leaf with it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { Hub } from "../src/hub/Hub.js";
import { ANONYMOUS } from "../src/hub/HubApi.js";
import { migratePg } from "../src/store/postgres/migrate.js";
import { PG_BY_HASH, PostgresStore } from "../src/store/postgres/PostgresStore.js";
import { clientConfig } from "../src/store/postgres/pgPool.js";
import Database from "../src/store/sqlite/Database.js";
import { migrate } from "../src/store/sqlite/migrate.js";
import { SCHEMA_VERSION } from "../src/store/sqlite/migrations.js";
import { BY_HASH, SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { send } from "./asset-fixtures.js";
import { cleanup, tempDir } from "./hub-fixtures.js";
import { openSqliteHub } from "./support/openSqliteHub.js";
import { testDatabase } from "./support/pg.js";
import {
  assertServesAndAppends,
  copyPgRows,
  copySqliteRows,
  pullTexts,
  type Story,
  writeStory,
} from "./support/schemaV6.js";

after(cleanup);

const pgdb = await testDatabase();

/** Each SEND's hash with its own leaf and its commit's, by commit hash. */
const SEND_LEAVES = `SELECT s.commit_hash AS hash, s.leaf_index AS leaf, c.leaf_index AS commit_leaf
  FROM sends s JOIN commits c ON c.hash = s.commit_hash ORDER BY s.commit_hash`;

/** The story's SENDs to `holder` as the hub lists them: hash and received. */
async function incoming(hub: Hub): Promise<[string, boolean][]> {
  return (await hub.listIncomingSends(ANONYMOUS, "holder", {})).sends.map((s) => [s.send_commit_id, s.received]);
}

/** After the story's checks, a SEND stored by this code is listed last, with its commit's leaf. */
async function assertNewSendListed(hub: Hub, story: Story): Promise<void> {
  const hash = await send(hub, story.owner, "issuer", "gold", "holder", 1);
  const page = await hub.listIncomingSends(ANONYMOUS, "holder", {});
  assert.deepEqual(
    page.sends.map((s) => s.send_commit_id),
    [story.received, story.pending, hash],
  );
  assert.equal(page.total, 3);
  assert.equal(page.sends[2]!.leaf_index, (await hub.getInclusionProof(ANONYMOUS, { hash })).leaf_index);
  const pending = await hub.listIncomingSends(ANONYMOUS, "holder", { pending: true, limit: 1, offset: 1 });
  assert.deepEqual([pending.sends.map((s) => s.send_commit_id), pending.total], [[hash], 2]);
}

describe("schema version 11 on SQLite", () => {
  let story: Story;
  let pulled: Record<string, string[]>;
  let written: string;

  before(async () => {
    written = tempDir();
    const hub = await openSqliteHub({ dataDir: written, snapshotEvery: 2 });
    story = await writeStory(hub);
    pulled = await pullTexts(hub.store, story.ids);
    await hub.close();
  });

  /** A version-10 data directory with the story's rows (`unleafed`: its commits without leaves, as before the tree). */
  function at10(unleafed = false): string {
    const dir = tempDir();
    const db = new Database(join(dir, "hub.sqlite"));
    db.pragma("journal_mode = WAL");
    db.pragma("foreign_keys = ON");
    assert.equal(migrate(db, 1_700_000_000, 10), 10);
    copySqliteRows(join(written, "hub.sqlite"), db);
    const columns = (db.pragma("table_info(sends)") as { name: string }[]).map((c) => c.name);
    assert.ok(!columns.includes("leaf_index"), columns.join());
    if (unleafed)
      db.exec("UPDATE commits SET leaf_index = NULL; DELETE FROM tlog_nodes; UPDATE tlog_size SET size = 0");
    db.close();
    return dir;
  }

  function sendLeaves(dir: string): { hash: string; leaf: number | null; commit_leaf: number | null }[] {
    const db = new Database(join(dir, "hub.sqlite"), { readonly: true });
    try {
      return db.prepare(SEND_LEAVES).all() as { hash: string; leaf: number | null; commit_leaf: number | null }[];
    } finally {
      db.close();
    }
  }

  it("gives every stored SEND its commit's leaf and indexes them by recipient and leaf", async () => {
    const dir = at10();
    const store = await SqliteStore.open({ dataDir: dir });
    await store.close();
    const leaves = sendLeaves(dir);
    assert.equal(leaves.length, 2);
    for (const s of leaves) assert.ok(s.leaf !== null && s.leaf === s.commit_leaf, JSON.stringify(s));
    const db = new Database(join(dir, "hub.sqlite"), { readonly: true });
    assert.deepEqual(db.prepare("SELECT MAX(version) AS v FROM schema_version").get(), { v: SCHEMA_VERSION });
    const indexes = (db.pragma("index_list(sends)") as { name: string }[]).map((i) => i.name).sort();
    // Version 13 adds the index of the pending SENDs (test/migration-v13.test.ts).
    assert.deepEqual(indexes, [
      "sends_by_recipient_leaf",
      "sends_pending_by_recipient_leaf",
      "sqlite_autoindex_sends_1",
    ]);
    assert.deepEqual(db.pragma("integrity_check"), [{ integrity_check: "ok" }]);
    db.close();
  });

  it("numbers the SENDs of commits that get their leaves only when the store opens", async () => {
    const dir = at10(true);
    const store = await SqliteStore.open({ dataDir: dir });
    await store.close();
    const leaves = sendLeaves(dir);
    assert.equal(leaves.length, 2);
    for (const s of leaves) assert.ok(s.leaf !== null && s.leaf === s.commit_leaf, JSON.stringify(s));
  });

  it("reads a page of incoming SENDs in order from the index, and counts them all without the receipts", async () => {
    const dir = at10();
    await (await SqliteStore.open({ dataDir: dir })).close();
    const db = new Database(join(dir, "hub.sqlite"), { readonly: true });
    const params = { contractId: "holder", limit: 10, offset: 0 };
    const plan = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((s) => s.detail);
    // The pending page reads version 13's index of the pending SENDs (test/migration-v13.test.ts).
    const steps = plan(BY_HASH.incoming(false));
    assert.ok(
      steps.some((d) => d.startsWith("SEARCH s USING INDEX sends_by_recipient_leaf (to_contract=?)")),
      steps.join("; "),
    );
    assert.ok(!steps.some((d) => d.includes("TEMP B-TREE")), steps.join("; "));
    const count = plan(BY_HASH.incomingTotal(false));
    assert.deepEqual(count, ["SEARCH sends USING COVERING INDEX sends_by_recipient_leaf (to_contract=?)"]);
    db.close();
  });

  it("serves the migrated contracts, lists their SENDs in the same order, and stores a new SEND's leaf", async () => {
    const hub = await openSqliteHub({ dataDir: at10() });
    try {
      assert.deepEqual(await incoming(hub), [
        [story.received, true],
        [story.pending, false],
      ]);
      await assertServesAndAppends(hub, story, pulled);
      await assertNewSendListed(hub, story);
    } finally {
      await hub.close();
    }
  });
});

describe("schema version 11 on PostgreSQL", { timeout: 60_000 }, () => {
  let admin: pg.Pool;
  let story: Story;
  let pulled: Record<string, string[]>;
  let written: string;

  before(async () => {
    admin = new pg.Pool(clientConfig({ connectionString: pgdb.url }, "migration-v11-test"));
    // The database is dropped with FORCE after the file's tests: an idle client it ends is no error.
    admin.on("error", () => {});
    written = pgdb.freshSchema();
    const store = await PostgresStore.open({ connectionString: pgdb.url, schema: written, poolSize: 2 });
    const hub = new Hub({ store, snapshotEvery: 2 });
    story = await writeStory(hub);
    pulled = await pullTexts(store, story.ids);
    await hub.close();
    await store.close();
  });
  after(async () => {
    await admin.end();
  });

  /** A version-10 schema with the story's rows (`unleafed`: its commits without leaves). */
  async function at10(unleafed = false): Promise<string> {
    const schema = pgdb.freshSchema();
    const client = await admin.connect();
    try {
      await client.query(`CREATE SCHEMA "${schema}"`);
      await client.query(`SET search_path TO "${schema}"`);
      assert.equal(await migratePg(client, 1_700_000_000, schema, 10), 10);
      await copyPgRows(client, written, schema);
      if (unleafed) {
        await client.query("UPDATE commits SET leaf_index = NULL");
        await client.query("DELETE FROM tlog_nodes");
        await client.query("UPDATE tlog_size SET size = 0");
      }
      const { rows } = await client.query(
        "SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'sends' AND column_name = 'leaf_index'",
        [schema],
      );
      assert.equal(rows.length, 0);
    } finally {
      await client.query("RESET search_path");
      client.release();
    }
    return schema;
  }

  async function sendLeaves(schema: string) {
    const client = await admin.connect();
    try {
      await client.query(`SET search_path TO "${schema}"`);
      return (await client.query<{ hash: string; leaf: number | null; commit_leaf: number | null }>(SEND_LEAVES)).rows;
    } finally {
      await client.query("RESET search_path");
      client.release();
    }
  }

  const open = (schema: string) => PostgresStore.open({ connectionString: pgdb.url, schema, poolSize: 2 });

  it("gives every stored SEND its commit's leaf, also when the commits get theirs only at open", async () => {
    for (const unleafed of [false, true]) {
      const schema = await at10(unleafed);
      await (await open(schema)).close();
      const leaves = await sendLeaves(schema);
      assert.equal(leaves.length, 2);
      for (const s of leaves) assert.ok(s.leaf !== null && s.leaf === s.commit_leaf, JSON.stringify(s));
      const { rows } = await admin.query<{ indexname: string }>(
        "SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'sends' ORDER BY indexname",
        [schema],
      );
      assert.deepEqual(
        rows.map((r) => r.indexname),
        ["sends_by_recipient_leaf", "sends_pending_by_recipient_leaf", "sends_pkey"],
      );
    }
  });

  it("can read a page of incoming SENDs in order from the index, without sorting them", async () => {
    const schema = await at10();
    // A transaction older than the migration, as a busy database always has: PostgreSQL lets no
    // snapshot older than an index's creation use it when the index was built over rows updated
    // without it (`indcheckxmin`), so the backfill must not run before the index exists.
    const older = await admin.connect();
    const client = await admin.connect();
    try {
      await older.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
      await older.query("SELECT txid_current()");
      await (await open(schema)).close();
      await client.query(`SET search_path TO "${schema}"`);
      // The tables are tiny, so the planner would scan them: forbid scans and sorts to see
      // whether the index alone yields the page in order (a sort it cannot avoid stays).
      await client.query("SET enable_seqscan = off");
      await client.query("SET enable_sort = off");
      // The pending page reads version 13's index of the pending SENDs (test/migration-v13.test.ts).
      const page = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${PG_BY_HASH.incoming(false)}`, [
        "holder",
        10,
        0,
      ]);
      const plan = page.rows.map((r) => r["QUERY PLAN"]).join("\n");
      assert.match(plan, /Index (Only )?Scan using sends_by_recipient_leaf on sends s/);
      assert.doesNotMatch(plan, /Sort/);
      const { rows } = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${PG_BY_HASH.incomingTotal(false)}`, [
        "holder",
      ]);
      assert.doesNotMatch(rows.map((r) => r["QUERY PLAN"]).join("\n"), /receipts/);
    } finally {
      await client.query("RESET ALL");
      client.release();
      await older.query("ROLLBACK");
      older.release();
    }
  });

  it("serves the migrated contracts, lists their SENDs in the same order, and stores a new SEND's leaf", async () => {
    const store = await open(await at10());
    const hub = new Hub({ store });
    try {
      assert.deepEqual(await incoming(hub), [
        [story.received, true],
        [story.pending, false],
      ]);
      await assertServesAndAppends(hub, story, pulled);
      await assertNewSendListed(hub, story);
    } finally {
      await hub.close();
      await store.close();
    }
  });
});
