/**
 * Schema version 7 on PostgreSQL (docs/storage.md): a schema a hub left at version 6, opened
 * by this code, gets one unique index on `commits.hash` and loses UNIQUE (contract_id, hash)
 * and `commits_by_hash`; every row reads back as stored, the lookups by hash use the new
 * index, instances opening it at once apply it once, the hub serves and appends on it, and
 * `contract-hub verify --database-url` finds it clean.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { Hub } from "../src/hub/Hub.js";
import { migratePg } from "../src/store/postgres/migrate.js";
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from "../src/store/postgres/migrations.js";
import { PG_BY_HASH, PostgresStore } from "../src/store/postgres/PostgresStore.js";
import { clientConfig } from "../src/store/postgres/pgPool.js";
import { cli, tempDir } from "./cli-support.js";
import { created } from "./store-contract.js";
import { testDatabase } from "./support/pg.js";
import { assertServesAndAppends, copyPgRows, dumpPg, pullTexts, type Story, writeStory } from "./support/schemaV6.js";
import { testChain } from "./support/testChain.js";

const db = await testDatabase();
/** BIGINT as numbers, as the stores read them; no schema of its own (statements name theirs). */
const admin = new pg.Pool(clientConfig({ connectionString: db.url }, "migration-v7-test"));
// As the store's own pool does: an idle client the server ends (the database is dropped with
// FORCE after the file's tests) must not become an uncaught error; queries still fail loudly.
admin.on("error", () => {});
const stores: PostgresStore[] = [];

async function open(schema?: string): Promise<PostgresStore> {
  const s = await PostgresStore.open({ connectionString: db.url, poolSize: 4, ...(schema ? { schema } : {}) });
  stores.push(s);
  return s;
}

/** The indexes of `schema.commits` as `name unique`. */
async function commitIndexes(schema: string): Promise<string[]> {
  const { rows } = await admin.query<{ indexname: string; indexdef: string }>(
    "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'commits' ORDER BY indexname",
    [schema],
  );
  return rows.map((r) => `${r.indexname} ${r.indexdef.startsWith("CREATE UNIQUE") ? "unique" : "plain"}`);
}

/** The constraints of `schema.commits` as `name type`. */
async function commitConstraints(schema: string): Promise<string[]> {
  const { rows } = await admin.query<{ conname: string; contype: string }>(
    `SELECT conname, contype FROM pg_constraint WHERE conrelid = format('%I.commits', $1::text)::regclass ORDER BY conname`,
    [schema],
  );
  return rows.map((r) => `${r.conname} ${r.contype}`);
}

const V6_INDEXES = [
  "commits_by_hash plain",
  "commits_by_leaf unique",
  "commits_contract_id_hash_key unique",
  "commits_pkey unique",
];
const V7_INDEXES = ["commits_by_leaf unique", "commits_pkey unique", "commits_unique_hash unique"];

/** Builds `schema` at version 6 (created if missing) with the rows of `written`. */
async function schemaAt6(schema: string, written: string): Promise<void> {
  const pool = new pg.Pool(
    clientConfig({ connectionString: db.url, ...(schema === "public" ? {} : { schema }) }, "v6"),
  );
  pool.on("error", () => {});
  const client = await pool.connect();
  try {
    assert.equal(await migratePg(client, 1_700_000_000, schema === "public" ? undefined : schema, 6), 6);
  } finally {
    client.release();
    await pool.end();
  }
  const client2 = await admin.connect();
  try {
    await copyPgRows(client2, written, schema);
  } finally {
    client2.release();
  }
}

let story: Story;
let written: string;
let pulled: Record<string, string[]>;
let stored: Record<string, unknown[]>;

before(async () => {
  written = db.freshSchema();
  const store = await PostgresStore.open({ connectionString: db.url, schema: written, poolSize: 4 });
  const hub = new Hub({ store, snapshotEvery: 2 });
  story = await writeStory(hub);
  pulled = await pullTexts(store, story.ids);
  await hub.close();
  await store.close();
  // The schema-6 store is the test database's own `public`, where `verify --database-url` looks.
  await schemaAt6("public", written);
  stored = await dumpPg(admin, "public");
  assert.deepEqual(await commitIndexes("public"), V6_INDEXES);
  assert.deepEqual(await commitConstraints("public"), [
    "commits_contract_id_fkey f",
    "commits_contract_id_hash_key u",
    "commits_pkey p",
  ]);
});

describe("schema version 7 on PostgreSQL", { timeout: 60_000 }, () => {
  // Here, not at the file's level: the database is dropped after the file's tests, with its connections.
  after(async () => {
    for (const s of stores.splice(0)) await s.close();
    await admin.end();
  });

  it("opens a schema-6 store at version 7, every row of every table as it was stored", async () => {
    assert.ok(PG_SCHEMA_VERSION >= 7, `schema version ${PG_SCHEMA_VERSION}`);
    assert.deepEqual([stored.commits!.length, stored.state_snapshots!.length], [11, story.ids.length]);
    const store = await open();
    assert.deepEqual(await pullTexts(store, story.ids), pulled);
    const { rows } = await admin.query("SELECT version FROM public.schema_version ORDER BY version");
    assert.deepEqual(
      rows.map((r) => r.version),
      PG_MIGRATIONS.map((m) => m.version),
    );
    assert.deepEqual(await dumpPg(admin, "public"), stored);
    assert.deepEqual(await commitIndexes("public"), V7_INDEXES);
    assert.deepEqual(await commitConstraints("public"), ["commits_contract_id_fkey f", "commits_pkey p"]);
  });

  it("applies version 7 once when three instances open a schema-6 store at the same time", async () => {
    const schema = db.freshSchema();
    await schemaAt6(schema, written);
    await Promise.all([open(schema), open(schema), open(schema)]);
    const { rows } = await admin.query(`SELECT version FROM "${schema}".schema_version ORDER BY version`);
    assert.deepEqual(
      rows.map((r) => r.version),
      PG_MIGRATIONS.map((m) => m.version),
    );
    assert.deepEqual(await commitIndexes(schema), V7_INDEXES);
    assert.deepEqual(await dumpPg(admin, schema), stored);
  });

  it("answers every lookup of commits by hash from the unique hash index", async () => {
    // A migrated store with a long contract beside the story's, and statistics, as a live one has.
    const schema = db.freshSchema();
    await schemaAt6(schema, written);
    const store = await open(schema);
    const chain = testChain("long", 3000);
    await store.appendCommits("long", null, chain, created());
    const client = await admin.connect();
    try {
      await client.query(`ANALYZE "${schema}".commits`);
      await client.query(`SET search_path = "${schema}"`);
      const plans: Record<string, [string, unknown[]]> = {
        commit: [PG_BY_HASH.commit, ["long", chain[1500]!.hash]],
        stored: [PG_BY_HASH.stored, ["long", [chain[10]!.hash, chain[2000]!.hash]]],
        leaf: [PG_BY_HASH.leaf, [story.received]],
        incoming: [PG_BY_HASH.incoming(false), ["holder", 10, 0]],
        pending: [PG_BY_HASH.incoming(true), ["holder", 10, 0]],
      };
      for (const [name, [sql, params]] of Object.entries(plans)) {
        const plan = (await client.query(`EXPLAIN ${sql}`, params)).rows.map((r) => r["QUERY PLAN"] as string);
        const used = new Set(plan.join("\n").match(/\bcommits_\w+/g));
        assert.deepEqual([...used], ["commits_unique_hash"], `${name}:\n${plan.join("\n")}`);
        assert.ok(!plan.some((l) => /Seq Scan on commits/.test(l)), `${name}:\n${plan.join("\n")}`);
      }
    } finally {
      await client.query("RESET search_path");
      client.release();
    }
  });

  it("serves the migrated contracts and appends to them", async () => {
    const store = await open();
    const hub = new Hub({ store });
    try {
      await assertServesAndAppends(hub, story, pulled);
    } finally {
      await hub.close();
    }
  });

  it("is clean under contract-hub verify --database-url", async () => {
    const home = tempDir("verify-v7");
    const r = await cli(["verify", "--database-url", db.url, "--json"], { cwd: home, home });
    assert.equal(r.code, 0, r.stderr);
    const doc = r.json<{ ok: boolean; checked: number; damaged: number; tree: { ok: boolean } }>();
    assert.deepEqual([doc.ok, doc.checked, doc.damaged, doc.tree.ok], [true, story.ids.length, 0, true]);
  });

  it("can run version 7's statements again on a migrated store without changing a row", async () => {
    const before = await dumpPg(admin, "public");
    const client = await admin.connect();
    try {
      await client.query("BEGIN");
      for (const sql of PG_MIGRATIONS.find((m) => m.version === 7)!.statements) await client.query(sql);
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    assert.deepEqual(await commitIndexes("public"), V7_INDEXES);
    assert.deepEqual(await dumpPg(admin, "public"), before);
  });
});
