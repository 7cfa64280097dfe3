/**
 * Schema version 9 on both dialects (docs/storage.md): the tree's leaves are derived from the
 * commits, so a database an older hub left at version 8, with a `tlog_nodes` row for every
 * leaf, loses those rows when this code opens it and keeps every node above them; roots and
 * proofs read the same, and `contract-hub verify`'s tree check finds it clean.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import pg from "pg";
import { verifyTree } from "../src/cli/verify/verifyTree.js";
import type { StoredCommit } from "../src/contract/StoredCommit.js";
import { migratePg } from "../src/store/postgres/migrate.js";
import { PostgresStore } from "../src/store/postgres/PostgresStore.js";
import { clientConfig } from "../src/store/postgres/pgPool.js";
import type { Store } from "../src/store/Store.js";
import Database from "../src/store/sqlite/Database.js";
import { migrate } from "../src/store/sqlite/migrate.js";
import { SCHEMA_VERSION } from "../src/store/sqlite/migrations.js";
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { leafHash, verifyInclusion } from "../src/tlog/merkle.js";
import { proveInclusion, treeRoot } from "../src/tlog/proofs.js";
import { cleanup, tempDir } from "./hub-fixtures.js";
import { created } from "./store-contract.js";
import { referenceRoot } from "./store-contract-tree.js";
import { testDatabase } from "./support/pg.js";
import { copyPgRows, copySqliteRows } from "./support/schemaV6.js";
import { testChain } from "./support/testChain.js";

after(cleanup);

const pgdb = await testDatabase();
const admin = new pg.Pool(clientConfig({ connectionString: pgdb.url }, "migration-v9-test"));
// The database is dropped with FORCE after the file's tests: an idle client it ends is no error.
admin.on("error", () => {});

/** Two contracts' commits, interleaved in the tree: 7 leaves, so every level has a lone right edge. */
async function writeCommits(store: Store): Promise<string[]> {
  const a = testChain("va", 4);
  const b = testChain("vb", 3);
  await store.appendCommits("va", null, a.slice(0, 2), created());
  await store.appendCommits("vb", null, b, created());
  await store.appendCommits("va", a[1]!.hash, a.slice(2));
  const byLeaf: string[] = [];
  for (const c of [...a, ...b] as StoredCommit[]) byLeaf[c.leafIndex!] = c.hash;
  return byLeaf;
}

/** The level-0 rows a version-8 hub wrote: one per leaf, the hash of its commit's hash. */
const leafRows = (byLeaf: readonly string[]) =>
  byLeaf.map((h, i) => [0, i, leafHash(Buffer.from(h, "hex")).toString("hex")] as const);

/** Every root, and an inclusion proof of each leaf in the whole tree, against the reference tree. */
async function assertTreeReads(store: Store, byLeaf: readonly string[]): Promise<void> {
  const read = (ids: Parameters<Store["readTreeNodes"]>[0]) => store.readTreeNodes(ids);
  assert.equal(await store.treeSize(), byLeaf.length);
  for (let n = 1; n <= byLeaf.length; n++) assert.deepEqual(await treeRoot(read, n), referenceRoot(byLeaf.slice(0, n)));
  const root = referenceRoot(byLeaf);
  for (let i = 0; i < byLeaf.length; i++) {
    const proof = await proveInclusion(read, i, byLeaf.length);
    assert.ok(verifyInclusion(leafHash(Buffer.from(byLeaf[i]!, "hex")), i, byLeaf.length, proof, root), `leaf ${i}`);
  }
}

describe("schema version 9 on SQLite", () => {
  it("drops the leaf rows of a version-8 database, keeps the nodes above them, and reads the same tree", async () => {
    const written = tempDir();
    const source = await SqliteStore.open({ dataDir: written });
    const byLeaf = await writeCommits(source);
    await source.close();

    const dir = tempDir();
    const db = new Database(join(dir, "hub.sqlite"));
    db.pragma("journal_mode = WAL");
    db.pragma("foreign_keys = ON");
    assert.equal(migrate(db, 1_700_000_000, 8), 8);
    copySqliteRows(join(written, "hub.sqlite"), db);
    const inner = db.prepare("SELECT level, idx, hash FROM tlog_nodes ORDER BY level, idx").all();
    const add = db.prepare("INSERT INTO tlog_nodes (level, idx, hash) VALUES (?, ?, ?)");
    for (const row of leafRows(byLeaf)) add.run(...row);
    db.close();

    const store = await SqliteStore.open({ dataDir: dir });
    await assertTreeReads(store, byLeaf);
    assert.deepEqual(await verifyTree(store, ["va", "vb"]), { ok: true, size: byLeaf.length });
    await store.close();
    const after = new Database(join(dir, "hub.sqlite"), { readonly: true });
    assert.deepEqual(after.prepare("SELECT MAX(version) AS v FROM schema_version").get(), { v: SCHEMA_VERSION });
    assert.deepEqual(after.prepare("SELECT level, idx, hash FROM tlog_nodes ORDER BY level, idx").all(), inner);
    after.close();
  });

  it("writes no leaf rows: an append stores only the subtrees it completes above the leaves", async () => {
    const dir = tempDir();
    const store = await SqliteStore.open({ dataDir: dir });
    const byLeaf = await writeCommits(store);
    await store.close();
    const db = new Database(join(dir, "hub.sqlite"), { readonly: true });
    // 7 leaves complete 3 nodes at level 1, 1 at level 2 and none at level 3.
    assert.deepEqual(db.prepare("SELECT level, COUNT(*) AS n FROM tlog_nodes GROUP BY level ORDER BY level").all(), [
      { level: 1, n: 3 },
      { level: 2, n: 1 },
    ]);
    db.close();
    assert.equal(byLeaf.length, 7);
  });
});

describe("schema version 9 on PostgreSQL", { timeout: 60_000 }, () => {
  // Here, not at the file's level: the database is dropped after the file's tests, with its connections.
  after(async () => {
    await admin.end();
  });

  it("drops the leaf rows of a version-8 schema, keeps the nodes above them, and reads the same tree", async () => {
    const written = pgdb.freshSchema();
    const source = await PostgresStore.open({ connectionString: pgdb.url, schema: written, poolSize: 2 });
    const byLeaf = await writeCommits(source);
    await source.close();

    const old = pgdb.freshSchema();
    const client = await admin.connect();
    try {
      await client.query(`CREATE SCHEMA "${old}"`);
      await client.query(`SET search_path TO "${old}"`);
      assert.equal(await migratePg(client, 1_700_000_000, old, 8), 8);
      await copyPgRows(client, written, old);
      const [levels, indexes, hashes] = [0, 1, 2].map((k) => leafRows(byLeaf).map((r) => r[k]));
      await client.query(
        `INSERT INTO "${old}".tlog_nodes (level, idx, hash) SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::text[])`,
        [levels, indexes, hashes],
      );
    } finally {
      await client.query("RESET search_path");
      client.release();
    }
    const inner = async () =>
      (await admin.query(`SELECT level, idx, hash FROM "${old}".tlog_nodes WHERE level > 0 ORDER BY level, idx`)).rows;
    const before = await inner();

    const store = await PostgresStore.open({ connectionString: pgdb.url, schema: old, poolSize: 2 });
    try {
      await assertTreeReads(store, byLeaf);
      assert.deepEqual(await verifyTree(store, ["va", "vb"]), { ok: true, size: byLeaf.length });
    } finally {
      await store.close();
    }
    const { rows } = await admin.query(`SELECT COUNT(*)::int AS n FROM "${old}".tlog_nodes WHERE level = 0`);
    assert.deepEqual(rows, [{ n: 0 }]);
    assert.deepEqual(await inner(), before);
    assert.equal(before.length, 4);
  });
});
