/**
 * Schema version 13 on both dialects (docs/storage.md, "Pending SENDs"): each SEND carries
 * whether it was received, set by a trigger on the receipt's INSERT, and the SENDs not
 * received are indexed by recipient and leaf (a partial index). A pending page and its count
 * read only that index's rows, not every SEND addressed to the contract with its receipt
 * (PROTOCOL.md §18: anyone can send a contract many 1-unit SENDs that get received). A
 * database an older hub left at version 12 gets its markers from its receipts; the hub lists
 * its SENDs as before, and a receipt stored after, by this code or by the statement an
 * instance of older code runs, takes its SEND off the pending list.
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
import { recv, send } from "./asset-fixtures.js";
import { cleanup, tempDir } from "./hub-fixtures.js";
import { openSqliteHub } from "./support/openSqliteHub.js";
import { testDatabase } from "./support/pg.js";
import { copyPgRows, copySqliteRows, type Story, writeStory } from "./support/schemaV6.js";

after(cleanup);

const pgdb = await testDatabase();

/** The version before this one. */
const BEFORE = 12;

/** Each SEND's hash with its marker, by commit hash. */
const MARKERS = "SELECT commit_hash AS hash, received FROM sends ORDER BY commit_hash";

/** The listings compared before and after the migration: every field, in the hub's order. */
const QUERIES = [
  {},
  { pending: true },
  { pending: true, limit: 1 },
  { pending: true, offset: 1 },
  { limit: 1, offset: 1 },
] as const;

async function listings(hub: Hub): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const q of QUERIES) out.push(await hub.listIncomingSends(ANONYMOUS, "holder", q));
  return out;
}

/** The story's SENDs to `holder`, each with its marker as 0 or 1. */
function expectedMarkers(story: Story): { hash: string; received: number }[] {
  return [
    { hash: story.received, received: 1 },
    { hash: story.pending, received: 0 },
  ].sort((a, b) => (a.hash < b.hash ? -1 : 1));
}

/**
 * What the hub must do over the migrated store: list as before; take a SEND off the pending
 * list when a RECV of this code stores its receipt, and when `olderRecv` (the receipt's INSERT
 * as an instance of older code runs it, which sets no marker) does.
 */
async function assertPendingFollowsReceipts(
  hub: Hub,
  story: Story,
  listed: unknown[],
  olderRecv: (send: string, recvHash: string) => Promise<void>,
): Promise<void> {
  assert.deepEqual(await listings(hub), listed);
  const pendingOf = async () => {
    const page = await hub.listIncomingSends(ANONYMOUS, "holder", { pending: true });
    return [page.sends.map((s) => s.send_commit_id), page.total];
  };
  const fresh = await send(hub, story.owner, "issuer", "gold", "holder", 1);
  assert.deepEqual(await pendingOf(), [[story.pending, fresh], 2]);
  await recv(hub, story.owner, "holder", fresh);
  assert.deepEqual(await pendingOf(), [[story.pending], 1]);
  await olderRecv(story.pending, "ee".repeat(32));
  assert.deepEqual(await pendingOf(), [[], 0]);
  const all = await hub.listIncomingSends(ANONYMOUS, "holder", {});
  assert.deepEqual(
    all.sends.map((s) => [s.send_commit_id, s.received]),
    [
      [story.received, true],
      [story.pending, true],
      [fresh, true],
    ],
  );
}

/** The receipt's INSERT of src/store/sqlite/applyAssetEffects.ts, alone, as older code runs it. */
const OLDER_RECEIPT = "INSERT INTO receipts (send_commit_hash, recv_commit_hash, contract_id) VALUES (?, ?, 'holder')";

describe("schema version 13 on SQLite", () => {
  let story: Story;
  let listed: unknown[];
  let written: string;

  before(async () => {
    written = tempDir();
    const hub = await openSqliteHub({ dataDir: written, snapshotEvery: 2 });
    story = await writeStory(hub);
    listed = await listings(hub);
    await hub.close();
  });

  /** A version-12 data directory with the story's rows. */
  function at12(): string {
    const dir = tempDir();
    const db = new Database(join(dir, "hub.sqlite"));
    db.pragma("journal_mode = WAL");
    db.pragma("foreign_keys = ON");
    assert.equal(migrate(db, 1_700_000_000, BEFORE), BEFORE);
    copySqliteRows(join(written, "hub.sqlite"), db);
    const columns = (db.pragma("table_info(sends)") as { name: string }[]).map((c) => c.name);
    assert.ok(!columns.includes("received"), columns.join());
    db.close();
    return dir;
  }

  it("marks every SEND whose receipt is stored, and indexes the pending ones by recipient and leaf", async () => {
    const dir = at12();
    await (await SqliteStore.open({ dataDir: dir })).close();
    const db = new Database(join(dir, "hub.sqlite"), { readonly: true });
    assert.deepEqual(db.prepare(MARKERS).all(), expectedMarkers(story));
    assert.deepEqual(db.prepare("SELECT MAX(version) AS v FROM schema_version").get(), { v: SCHEMA_VERSION });
    const indexes = (db.pragma("index_list(sends)") as { name: string }[]).map((i) => i.name).sort();
    assert.deepEqual(indexes, [
      "sends_by_recipient_leaf",
      "sends_pending_by_recipient_leaf",
      "sqlite_autoindex_sends_1",
    ]);
    assert.deepEqual(db.pragma("integrity_check"), [{ integrity_check: "ok" }]);
    db.close();
  });

  it("reads a pending page and its count from the pending SENDs' index alone, without the receipts", async () => {
    const dir = at12();
    await (await SqliteStore.open({ dataDir: dir })).close();
    const db = new Database(join(dir, "hub.sqlite"), { readonly: true });
    const params = { contractId: "holder", limit: 10, offset: 0 };
    const plan = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((s) => s.detail);
    const page = plan(BY_HASH.incoming(true));
    assert.ok(
      page.some((d) => d.startsWith("SEARCH s USING INDEX sends_pending_by_recipient_leaf (to_contract=?)")),
      page.join("; "),
    );
    assert.ok(!page.some((d) => d.includes("TEMP B-TREE") || d.includes("receipts")), page.join("; "));
    assert.deepEqual(plan(BY_HASH.incomingTotal(true)), [
      "SEARCH sends USING COVERING INDEX sends_pending_by_recipient_leaf (to_contract=?)",
    ]);
    db.close();
  });

  it("lists the migrated SENDs as before, and a receipt stored after, by this code or older code, ends a SEND's pending", async () => {
    const dir = at12();
    const hub = await openSqliteHub({ dataDir: dir });
    // A second connection, as an instance of older code on the same file would have.
    const older = new Database(join(dir, "hub.sqlite"), { timeout: 5000 });
    try {
      await assertPendingFollowsReceipts(hub, story, listed, async (sendHash, recvHash) => {
        older.prepare(OLDER_RECEIPT).run(sendHash, recvHash);
      });
    } finally {
      older.close();
      await hub.close();
    }
  });
});

describe("schema version 13 on PostgreSQL", { timeout: 60_000 }, () => {
  let admin: pg.Pool;
  let story: Story;
  let listed: unknown[];
  let written: string;

  before(async () => {
    admin = new pg.Pool(clientConfig({ connectionString: pgdb.url }, "migration-v13-test"));
    // The database is dropped with FORCE after the file's tests: an idle client it ends is no error.
    admin.on("error", () => {});
    written = pgdb.freshSchema();
    const store = await PostgresStore.open({ connectionString: pgdb.url, schema: written, poolSize: 2 });
    const hub = new Hub({ store, snapshotEvery: 2 });
    story = await writeStory(hub);
    listed = await listings(hub);
    await hub.close();
    await store.close();
  });
  after(async () => {
    await admin.end();
  });

  /** A version-12 schema with the story's rows. */
  async function at12(): Promise<string> {
    const schema = pgdb.freshSchema();
    const client = await admin.connect();
    try {
      await client.query(`CREATE SCHEMA "${schema}"`);
      await client.query(`SET search_path TO "${schema}"`);
      assert.equal(await migratePg(client, 1_700_000_000, schema, BEFORE), BEFORE);
      await copyPgRows(client, written, schema);
      const { rows } = await client.query(
        "SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'sends' AND column_name = 'received'",
        [schema],
      );
      assert.equal(rows.length, 0);
    } finally {
      await client.query("RESET search_path");
      client.release();
    }
    return schema;
  }

  const open = (schema: string) => PostgresStore.open({ connectionString: pgdb.url, schema, poolSize: 2 });

  it("marks every SEND whose receipt is stored, and indexes the pending ones by recipient and leaf", async () => {
    const schema = await at12();
    await (await open(schema)).close();
    const { rows } = await admin.query(
      `SELECT commit_hash AS hash, received FROM "${schema}".sends ORDER BY commit_hash`,
    );
    assert.deepEqual(rows, expectedMarkers(story));
    const indexes = await admin.query<{ indexname: string }>(
      "SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'sends' ORDER BY indexname",
      [schema],
    );
    assert.deepEqual(
      indexes.rows.map((r) => r.indexname),
      ["sends_by_recipient_leaf", "sends_pending_by_recipient_leaf", "sends_pkey"],
    );
  });

  it("can read a pending page and its count from the pending SENDs' index alone, without the receipts", async () => {
    const schema = await at12();
    // A transaction older than the migration, as a busy database always has: PostgreSQL lets no
    // snapshot older than an index's creation use it when the index was built over rows updated
    // without it (`indcheckxmin`), so the markers' backfill must not run before the index exists.
    const older = await admin.connect();
    const client = await admin.connect();
    try {
      await older.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
      await older.query("SELECT txid_current()");
      await (await open(schema)).close();
      await client.query(`SET search_path TO "${schema}"`);
      // The tables are tiny, so the planner would scan them: forbid scans other than by index and
      // sorts, to see whether the partial index alone yields the page in order.
      await client.query("SET enable_seqscan = off");
      await client.query("SET enable_bitmapscan = off");
      await client.query("SET enable_sort = off");
      const explain = async (sql: string, params: unknown[]) =>
        (await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${sql}`, params)).rows
          .map((r) => r["QUERY PLAN"])
          .join("\n");
      const page = await explain(PG_BY_HASH.incoming(true), ["holder", 10, 0]);
      assert.match(page, /Index (Only )?Scan using sends_pending_by_recipient_leaf on sends s/);
      assert.doesNotMatch(page, /Sort|receipts/);
      const count = await explain(PG_BY_HASH.incomingTotal(true), ["holder"]);
      assert.match(count, /Index Only Scan using sends_pending_by_recipient_leaf on sends/);
      assert.doesNotMatch(count, /receipts/);
    } finally {
      await client.query("RESET ALL");
      client.release();
      await older.query("ROLLBACK");
      older.release();
    }
  });

  it("lists the migrated SENDs as before, and a receipt stored after, by this code or older code, ends a SEND's pending", async () => {
    const schema = await at12();
    const store = await open(schema);
    const hub = new Hub({ store });
    // Another connection, as an instance of older code would use, with the store's search_path.
    const older = new pg.Client(clientConfig({ connectionString: pgdb.url, schema }, "migration-v13-older"));
    await older.connect();
    try {
      await assertPendingFollowsReceipts(hub, story, listed, async (sendHash, recvHash) => {
        await older.query(OLDER_RECEIPT.replace("?, ?", "$1, $2"), [sendHash, recvHash]);
      });
    } finally {
      await older.end();
      await hub.close();
      await store.close();
    }
  });
});
