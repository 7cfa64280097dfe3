import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { referenceRoot } from "../../../test/store-contract-tree.js";
import { testChain } from "../../../test/support/testChain.js";
import { assertContractErrorAsync } from "../../contract/assertContractError.js";
import type { Operation } from "../../contract/Commit.js";
import { computeCommitHash } from "../../contract/commitHash.js";
import { publicKeyFromSeed } from "../../contract/keys.js";
import { type StoredCommit, toPulledCommit } from "../../contract/StoredCommit.js";
import { frontierOf, treeRoot } from "../../tlog/proofs.js";
import { loadLogKey } from "../loadLogKey.js";
import Database from "./Database.js";
import { migrate } from "./migrate.js";
import { MIGRATIONS, SCHEMA_VERSION } from "./migrations.js";
import { SqliteStore } from "./SqliteStore.js";

/** Turns a current database back into one written before the Merkle tree existed (schema 2). */
const UNDO_TREE =
  "DROP INDEX commits_by_leaf; ALTER TABLE commits DROP COLUMN leaf_index; DROP TABLE tlog_nodes; DROP TABLE tlog_size; DROP TABLE tlog_key";
/** Turns a current database back into one written before wire bytes and snapshots (schema 4). */
const UNDO_WIRE = "ALTER TABLE commits DROP COLUMN wire; DROP TABLE state_snapshots";
/** Turns a current database back into one whose SENDs carry no received marker (schema 12). */
const UNDO_SENDS_RECEIVED =
  "DROP TRIGGER receipts_mark_received; DROP INDEX sends_pending_by_recipient_leaf; ALTER TABLE sends DROP COLUMN received";
/** Turns a current database back into one that records the log key without its origin (schema 13). */
const UNDO_LOG_ORIGIN = "ALTER TABLE tlog_public_key DROP COLUMN origin";
/** Turns a current database back into one that records no log key (schema 11). */
const UNDO_LOG_KEY_RECORD = "DROP TABLE tlog_public_key";
/** Turns a current database back into one whose SENDs carry no leaf (schema 10), ahead of every older undo. */
const UNDO_SENDS_LEAF = `${UNDO_LOG_ORIGIN}; ${UNDO_SENDS_RECEIVED}; ${UNDO_LOG_KEY_RECORD}; DROP INDEX sends_by_recipient_leaf; ALTER TABLE sends DROP COLUMN leaf_index`;

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "store-test-"));
  dirs.push(d);
  return d;
}

const OWNER = "ab".repeat(32);
const OTHER = "cd".repeat(32);
const contract = (extra: { private?: boolean; readers?: string[] } = {}) => ({
  contract: { owner: OWNER, createdAt: 1_700_000_000, private: extra.private ?? false, readers: extra.readers ?? [] },
});

async function collect(it: AsyncIterable<StoredCommit>): Promise<StoredCommit[]> {
  const out: StoredCommit[] = [];
  for await (const c of it) out.push(c);
  return out;
}

async function withChain(store: SqliteStore, id: string, n: number): Promise<StoredCommit[]> {
  const chain = testChain(id, n);
  await store.appendCommits(id, null, chain.slice(0, 1), contract());
  if (n > 1) await store.appendCommits(id, chain[0]!.hash, chain.slice(1));
  return chain;
}

describe("SqliteStore", () => {
  it("opens in WAL mode with synchronous=FULL and records the schema version once", async () => {
    const dir = tempDir();
    const store = await SqliteStore.open({ dataDir: dir });
    assert.deepEqual(store.settings(), { journalMode: "wal", synchronous: 2 });
    await store.close();
    await (await SqliteStore.open({ dataDir: dir })).close();
    const db = new Database(join(dir, "hub.sqlite"), { readonly: true });
    const versions = db.prepare("SELECT version FROM schema_version").all();
    db.close();
    assert.deepEqual(
      versions,
      MIGRATIONS.map((m) => ({ version: m.version })),
    );
  });

  it("migration 2 backfills the party index from stored commits, the last write per path winning", async () => {
    const dir = tempDir();
    const store = await SqliteStore.open({ dataDir: dir });
    const [genesis] = testChain("p", 1);
    const data: Operation[] = [
      { method: "post", path: "/users/a.id", value: OTHER },
      { method: "post", path: "/users/b.id", value: OTHER },
      { method: "post", path: "/users/b.id", value: "ef".repeat(32) },
    ];
    const hash = computeCommitHash("p", genesis!.hash, data);
    const next = { index: 1, hash, parent: genesis!.hash, data, signatures: {}, timestamp: 1, signers: [] };
    await store.appendCommits("p", null, [genesis!], contract({ private: true }));
    // Stored without `parties`, as a hub before the index existed would have stored it.
    await store.appendCommits("p", genesis!.hash, [next]);
    await store.close();
    const db = new Database(join(dir, "hub.sqlite"));
    db.exec(
      `DROP TABLE party_paths; ${UNDO_SENDS_LEAF}; ${UNDO_WIRE}; ${UNDO_TREE}; DELETE FROM schema_version WHERE version >= 2`,
    );
    db.close();
    const reopened = await SqliteStore.open({ dataDir: dir });
    const sees = async (identity: string) =>
      (await reopened.listContracts({ identity, limit: 10, offset: 0 })).contracts.map((c) => c.id);
    assert.deepEqual([await sees(OTHER), await sees("ef".repeat(32)), await sees("12".repeat(32))], [["p"], ["p"], []]);
    await reopened.close();
  });

  it("migration 3 gives every stored commit a leaf, in receipt order, and the tree its nodes", async () => {
    const dir = tempDir();
    const store = await SqliteStore.open({ dataDir: dir });
    const a = testChain("a", 3);
    const b = testChain("b", 2);
    await store.appendCommits("a", null, a, contract());
    await store.appendCommits("b", null, b, contract());
    const before = await store.readTreeNodes(frontierOf(5));
    await store.close();
    const db = new Database(join(dir, "hub.sqlite"));
    db.exec(`${UNDO_SENDS_LEAF}; ${UNDO_WIRE}; ${UNDO_TREE}; DELETE FROM schema_version WHERE version >= 3`);
    db.close();
    const reopened = await SqliteStore.open({ dataDir: dir });
    assert.equal(await reopened.treeSize(), 5);
    // Receipt order: the test chains are stamped 1_700_000_000 + index.
    assert.deepEqual(
      await Promise.all([...a, ...b].map(async (c) => (await reopened.findLeaf(c.hash))!.leafIndex)),
      [0, 2, 4, 1, 3],
    );
    assert.equal((await reopened.readTreeNodes(frontierOf(5))).size, before.size);
    await reopened.close();
  });

  it("migration 3 keeps each contract's commits in log order when their stored times step back", async () => {
    // Before commit times were floored at the parent's, a hub whose clock stepped back (NTP)
    // stamped a commit earlier than its parent: its receipt came after the parent's all the same.
    const dir = tempDir();
    const store = await SqliteStore.open({ dataDir: dir });
    const a = testChain("a", 3);
    const b = testChain("b", 2);
    await store.appendCommits("a", null, a, contract());
    await store.appendCommits("b", null, b, contract());
    await store.close();
    const db = new Database(join(dir, "hub.sqlite"));
    db.exec(`${UNDO_SENDS_LEAF}; ${UNDO_WIRE}; ${UNDO_TREE}; DELETE FROM schema_version WHERE version >= 3`);
    // a: 100, 102, 90 (stepped back); b: 95, 101.
    const stamp = db.prepare("UPDATE commits SET timestamp = ? WHERE contract_id = ? AND idx = ?");
    for (const [id, idx, t] of [
      ["a", 0, 100],
      ["a", 1, 102],
      ["a", 2, 90],
      ["b", 0, 95],
      ["b", 1, 101],
    ] as const) {
      stamp.run(1_700_000_000 + t, id, idx);
    }
    db.close();
    const reopened = await SqliteStore.open({ dataDir: dir });
    const leaves = await Promise.all([...a, ...b].map(async (c) => (await reopened.findLeaf(c.hash))!.leafIndex));
    // a's third commit was received no earlier than its second (102): after b's second (101).
    assert.deepEqual(leaves, [1, 3, 4, 0, 2]);
    await reopened.close();
  });

  it("upgrades a schema-4 database to commits stored once: version 5 joins wire bytes, version 10 empties them, pulls keep every byte", async () => {
    const dir = tempDir();
    const store = await SqliteStore.open({ dataDir: dir });
    const chain = testChain("u", 3);
    const data: Operation[] = [{ method: "post", path: "/q.json", value: { é: [0.1, "\u2028😀"], z: null } }];
    const signed: StoredCommit = {
      index: 3,
      hash: computeCommitHash("u", chain[2]!.hash, data),
      parent: chain[2]!.hash,
      data,
      signatures: { [`ed25519:${OWNER}`]: "ff".repeat(64) },
      attestations: [{ oracle: OTHER, claim: "c", value: 1, signature: "dd".repeat(64) }],
      timestamp: 1_700_000_100,
      signers: [OWNER],
    };
    await store.appendCommits("u", null, chain, contract());
    await store.appendCommits("u", chain[2]!.hash, [signed]);
    await store.close();
    const expected = [...chain, { ...signed, leafIndex: 3 }].map((c) => JSON.stringify(toPulledCommit(c)));
    const wires = (db: Database.Database) => db.prepare("SELECT wire FROM commits ORDER BY idx").pluck().all();
    const db = new Database(join(dir, "hub.sqlite"));
    // A current hub stores each commit's bytes once: no wire copy.
    assert.deepEqual(wires(db), [null, null, null, null]);
    db.exec(`${UNDO_SENDS_LEAF}; ${UNDO_WIRE}; DELETE FROM schema_version WHERE version >= 5`);
    // Version 5 alone (as a hub of that version left it): the SQL join gives the push format
    // of each row, the pull entry's leading part byte for byte.
    assert.equal(migrate(db, 1_700_000_000, 5), 5);
    assert.deepEqual(
      wires(db),
      expected.map((e) => `${e.slice(0, e.indexOf(',"body":'))}}`),
    );
    db.close();
    const reopened = await SqliteStore.open({ dataDir: dir });
    const db2 = new Database(join(dir, "hub.sqlite"), { readonly: true });
    assert.deepEqual(wires(db2), [null, null, null, null]);
    db2.close();
    const pulled: string[] = [];
    for await (const page of reopened.readPullTexts("u", 0, 10)) pulled.push(...page);
    assert.deepEqual(pulled, expected);
    await reopened.close();
  });

  it("migration 6 indexes sends by recipient, so listing a contract's incoming SENDs does not scan them all", async () => {
    const dir = tempDir();
    await (await SqliteStore.open({ dataDir: dir })).close();
    const db = new Database(join(dir, "hub.sqlite"));
    // Version 11 replaced sends_by_recipient with sends_by_recipient_leaf, whose prefix serves this query.
    db.exec(`${UNDO_SENDS_LEAF}; DELETE FROM schema_version WHERE version >= 6`);
    db.close();
    await (await SqliteStore.open({ dataDir: dir })).close();
    const db2 = new Database(join(dir, "hub.sqlite"), { readonly: true });
    const plan = db2.prepare("EXPLAIN QUERY PLAN SELECT commit_hash FROM sends WHERE to_contract = ?").all("b") as {
      detail: string;
    }[];
    db2.close();
    assert.ok(
      plan.some((p) => p.detail.includes("sends_by_recipient")),
      JSON.stringify(plan),
    );
  });

  it("migration 12 records the log key of the first hub to load one on the store, and no other after it", async () => {
    const dir = tempDir();
    const store = await SqliteStore.open({ dataDir: dir });
    await withChain(store, "k", 2);
    const seed = await store.logKeySeed();
    await store.close();
    const db = new Database(join(dir, "hub.sqlite"));
    db.exec(
      `${UNDO_LOG_ORIGIN}; ${UNDO_SENDS_RECEIVED}; ${UNDO_LOG_KEY_RECORD}; DELETE FROM schema_version WHERE version >= 12`,
    );
    db.close();
    const reopened = await SqliteStore.open({ dataDir: dir });
    const own = await loadLogKey(reopened);
    assert.deepEqual(own.publicKey, publicKeyFromSeed(seed));
    assert.deepEqual(await reopened.recordLogKey(publicKeyFromSeed(randomBytes(32)), "log.example/other"), {
      publicKey: own.publicKey,
      origin: own.origin,
    });
    assert.equal(await reopened.treeSize(), 2);
    await reopened.close();
  });

  it("migration 14 keeps the recorded log key; the next hub with that key records its origin, and no other after it", async () => {
    const dir = tempDir();
    const store = await SqliteStore.open({ dataDir: dir });
    await withChain(store, "k", 2);
    const own = await loadLogKey(store);
    await store.close();
    const db = new Database(join(dir, "hub.sqlite"));
    db.exec(`${UNDO_LOG_ORIGIN}; DELETE FROM schema_version WHERE version >= 14`);
    db.close();
    const reopened = await SqliteStore.open({ dataDir: dir });
    assert.deepEqual(await reopened.recordLogKey(publicKeyFromSeed(randomBytes(32)), "log.example/other"), {
      publicKey: own.publicKey,
      origin: null,
    });
    assert.deepEqual(await reopened.recordLogKey(own.publicKey, "log.example/first"), {
      publicKey: own.publicKey,
      origin: "log.example/first",
    });
    await assertContractErrorAsync(() => loadLogKey(reopened), "INTERNAL", "log_origin_mismatch");
    assert.equal((await loadLogKey(reopened, { origin: "log.example/first" })).origin, "log.example/first");
    assert.equal(await reopened.treeSize(), 2);
    await reopened.close();
  });

  it("reads no wire copy an older instance wrote: a pull joins the JSON columns", async () => {
    const dir = tempDir();
    const store = await SqliteStore.open({ dataDir: dir });
    const chain = await withChain(store, "o", 4);
    const db = new Database(join(dir, "hub.sqlite"));
    db.exec(`UPDATE commits SET wire = '{"not":"read"}' WHERE idx IN (1, 2)`);
    db.close();
    const pulled: string[] = [];
    for await (const page of store.readPullTexts("o", 0, 4)) pulled.push(...page);
    const expected = (await collect(store.readCommits("o"))).map((c) => JSON.stringify(toPulledCommit(c)));
    assert.deepEqual(pulled, expected);
    assert.equal(expected.length, chain.length);
    await store.close();
  });

  it("keeps one tree when two stores write the same file, whatever each remembers of it", async () => {
    // A's refused append (a stored hash fails its insert after the leaves were numbered) leaves
    // A's writer remembering a tree of n + 1 leaves; B then makes the stored tree n + 1 leaves
    // with its own leaf, so only the other connection's commit tells A its memory is stale.
    const dir = tempDir();
    const a = await SqliteStore.open({ dataDir: dir });
    const b = await SqliteStore.open({ dataDir: dir });
    const x = testChain("x", 3);
    const y = testChain("y", 2);
    await a.appendCommits("x", null, x.slice(0, 2), contract());
    const again = { ...testChain("x", 1, x[1]!.hash, 2)[0]!, hash: x[0]!.hash };
    await assert.rejects(a.appendCommits("x", x[1]!.hash, [again]));
    await b.appendCommits("y", null, y.slice(0, 1), contract());
    await a.appendCommits("x", x[1]!.hash, [x[2]!]);
    await b.appendCommits("y", y[0]!.hash, [y[1]!]);
    const order = [x[0]!, x[1]!, y[0]!, x[2]!, y[1]!].map((c) => c.hash);
    const read = (ids: Parameters<SqliteStore["readTreeNodes"]>[0]) => a.readTreeNodes(ids);
    for (let n = 1; n <= order.length; n++) assert.deepEqual(await treeRoot(read, n), referenceRoot(order.slice(0, n)));
    await a.close();
    await b.close();
  });

  it("refuses a database written by a newer schema", async () => {
    const dir = tempDir();
    await (await SqliteStore.open({ dataDir: dir })).close();
    const db = new Database(join(dir, "hub.sqlite"));
    db.prepare("INSERT INTO schema_version (version, applied_at) VALUES (?, 0)").run(SCHEMA_VERSION + 1);
    db.close();
    await assertContractErrorAsync(() => SqliteStore.open({ dataDir: dir }), "INTERNAL", "schema_too_new");
  });

  it("runs concurrent appends in one transaction, one savepoint each (group commit)", async () => {
    const store = await SqliteStore.open({ dataDir: tempDir() });
    const before = store.stats();
    const n = 40;
    await Promise.all(
      Array.from({ length: n }, (_, i) => store.appendCommits(`g${i}`, null, testChain(`g${i}`, 1), contract())),
    );
    const s = store.stats();
    assert.equal(s.appends - before.appends, n);
    assert.ok(s.transactions - before.transactions < n, `${s.transactions - before.transactions} transactions`);
    for (let i = 0; i < n; i++) assert.equal((await store.getContract(`g${i}`))!.length, 1);
    await store.close();
  });

  it("commits the appends of one loop iteration's callbacks in one transaction, as requests read together", async () => {
    const store = await SqliteStore.open({ dataDir: tempDir() });
    await store.appendCommits("warm", null, testChain("warm", 1), contract());
    const before = store.stats();
    const n = 8;
    // Separate callbacks of one check phase, as separate requests' handlers of one poll phase.
    // (Not timers: each setTimeout reads the clock, so a row of them can fall due in two turns.)
    const appends = await new Promise<Promise<void>[]>((resolve) => {
      const started: Promise<void>[] = [];
      for (let i = 0; i < n; i++)
        setImmediate(() => started.push(store.appendCommits(`t${i}`, null, testChain(`t${i}`, 1), contract())));
      setImmediate(() => resolve(started));
    });
    await Promise.all(appends);
    const s = store.stats();
    assert.deepEqual([s.appends - before.appends, s.transactions - before.transactions], [n, 1]);
    await store.close();
  });

  it("fails a write whose arguments cannot reach the writer thread alone; the writes sent with it commit", async () => {
    const store = await SqliteStore.open({ dataDir: tempDir() });
    // A function cannot be cloned to another thread (a caller's bug): that append is refused.
    const unclonable = { ...contract(), note: () => "not data" } as ReturnType<typeof contract>;
    const [good1, bad, good2] = await Promise.allSettled([
      store.appendCommits("u1", null, testChain("u1", 1), contract()),
      store.appendCommits("u2", null, testChain("u2", 1), unclonable),
      store.appendCommits("u3", null, testChain("u3", 1), contract()),
    ]);
    assert.deepEqual([good1.status, good2.status], ["fulfilled", "fulfilled"]);
    assert.equal(bad.status === "rejected" && (bad.reason as Error).name, "DataCloneError");
    assert.deepEqual(
      await Promise.all(["u1", "u2", "u3"].map(async (id) => (await store.getContract(id))?.length ?? null)),
      [1, null, 1],
    );
    await store.close();
  });

  it("isolates a failing request of a batch from the others in it", async () => {
    const store = await SqliteStore.open({ dataDir: tempDir() });
    const chain = await withChain(store, "c1", 1);
    const rivals = Array.from({ length: 10 }, () => testChain("c1", 1, chain[0]!.hash, 1)[0]!);
    const results = await Promise.allSettled(rivals.map((c) => store.appendCommits("c1", chain[0]!.hash, [c])));
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
    for (const r of results) {
      if (r.status === "rejected") assert.equal((r.reason as { code: string }).code, "CONFLICT");
    }
    const other = store.appendCommits("c2", null, testChain("c2", 1), contract());
    const bad = store.appendCommits("c1", chain[0]!.hash, testChain("c1", 1, chain[0]!.hash, 1));
    await assert.rejects(bad);
    await other;
    assert.equal((await store.getContract("c1"))!.length, 2);
    assert.equal((await store.getContract("c2"))!.length, 1);
    await store.close();
  });

  it("streams commits page by page, bounded by the length when the read started", async () => {
    const store = await SqliteStore.open({ dataDir: tempDir(), pageSize: 3 });
    const chain = await withChain(store, "c1", 10);
    assert.deepEqual(
      (await collect(store.readCommits("c1", 4, 8))).map((c) => c.index),
      [4, 5, 6, 7],
    );
    const seen: number[] = [];
    let appended = false;
    for await (const c of store.readCommits("c1")) {
      seen.push(c.index);
      if (!appended) {
        appended = true;
        await store.appendCommits("c1", chain[9]!.hash, testChain("c1", 2, chain[9]!.hash, 10));
      }
    }
    assert.deepEqual(
      seen,
      Array.from({ length: 10 }, (_, i) => i),
    );
    assert.equal((await collect(store.readCommits("c1"))).length, 12);
    assert.deepEqual(await collect(store.readCommits("missing")), []);
    await store.close();
  });
});
