import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { assertContractErrorAsync } from "../../contract/assertContractError.js";
import type { Operation } from "../../contract/Commit.js";
import { computeCommitHash } from "../../contract/commitHash.js";
import type { StoredCommit } from "../../contract/StoredCommit.js";
import { MIGRATIONS, SCHEMA_VERSION } from "./migrations.js";
import { SqliteStore } from "./SqliteStore.js";
import { testChain } from "./testChain.js";

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
    db.exec("DROP TABLE party_paths; DELETE FROM schema_version WHERE version = 2");
    db.close();
    const reopened = await SqliteStore.open({ dataDir: dir });
    const sees = async (identity: string) =>
      (await reopened.listContracts({ identity, limit: 10, offset: 0 })).contracts.map((c) => c.id);
    assert.deepEqual([await sees(OTHER), await sees("ef".repeat(32)), await sees("12".repeat(32))], [["p"], ["p"], []]);
    await reopened.close();
  });

  it("refuses a database written by a newer schema", async () => {
    const dir = tempDir();
    await (await SqliteStore.open({ dataDir: dir })).close();
    const db = new Database(join(dir, "hub.sqlite"));
    db.prepare("INSERT INTO schema_version (version, applied_at) VALUES (?, 0)").run(SCHEMA_VERSION + 1);
    db.close();
    await assertContractErrorAsync(() => SqliteStore.open({ dataDir: dir }), "INTERNAL", "schema_too_new");
  });

  it("creates a contract with its genesis and appends a chain", async () => {
    const store = await SqliteStore.open({ dataDir: tempDir() });
    const chain = await withChain(store, "c1", 5);
    const rec = await store.getContract("c1");
    assert.deepEqual(rec, {
      id: "c1",
      owner: OWNER,
      createdAt: 1_700_000_000,
      head: chain[4]!.hash,
      length: 5,
      private: false,
    });
    assert.deepEqual(await collect(store.readCommits("c1")), chain);
    assert.deepEqual(await store.getCommitByHash("c1", chain[2]!.hash), chain[2]);
    assert.deepEqual(await store.getCommitAt("c1", 3), chain[3]);
    assert.equal(await store.getCommitByHash("other", chain[2]!.hash), null);
    assert.equal(await store.getContract("nope"), null);
    await store.close();
  });

  it("answers a stale head with CONFLICT naming the stored head, and stores nothing", async () => {
    const store = await SqliteStore.open({ dataDir: tempDir() });
    const chain = await withChain(store, "c1", 3);
    const fork = testChain("c1", 2, chain[1]!.hash, 2, "fork");
    const details = await assertContractErrorAsync(
      () => store.appendCommits("c1", chain[1]!.hash, fork),
      "CONFLICT",
      "stale_head",
    );
    assert.equal(details.head, chain[2]!.hash);
    const again = await assertContractErrorAsync(
      () => store.appendCommits("c1", null, testChain("c1", 1), contract()),
      "CONFLICT",
    );
    assert.equal(again.head, chain[2]!.hash);
    assert.equal((await store.getContract("c1"))!.length, 3);
    assert.equal(await store.getCommitByHash("c1", fork[0]!.hash), null);
    await store.close();
  });

  it("stores all commits of an append or none", async () => {
    const store = await SqliteStore.open({ dataDir: tempDir() });
    const chain = await withChain(store, "c1", 2);
    const next = testChain("c1", 3, chain[1]!.hash, 2);
    next[2] = { ...next[2]!, index: 9 }; // misplaced: the whole append must fail
    await assertContractErrorAsync(() => store.appendCommits("c1", chain[1]!.hash, next), "INTERNAL");
    assert.equal(await store.getCommitByHash("c1", next[0]!.hash), null);
    assert.equal((await store.getContract("c1"))!.head, chain[1]!.hash);
    await store.close();
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

  it("keeps everything across close and reopen", async () => {
    const dir = tempDir();
    const store = await SqliteStore.open({ dataDir: dir });
    const chain = await withChain(store, "c1", 4);
    await store.registerAccessKey(OWNER, OTHER, 5);
    await store.close();
    const reopened = await SqliteStore.open({ dataDir: dir });
    assert.deepEqual(await collect(reopened.readCommits("c1")), chain);
    assert.equal((await reopened.getAccessKey(OTHER))?.identity, OWNER);
    await reopened.close();
  });

  it("registers, lists and revokes access keys; a revoked or foreign key cannot be registered", async () => {
    const store = await SqliteStore.open({ dataDir: tempDir() });
    const k1 = "11".repeat(32);
    const k2 = "22".repeat(32);
    assert.deepEqual(await store.registerAccessKey(OWNER, k1, 10), {
      accessKey: k1,
      identity: OWNER,
      createdAt: 10,
      revokedAt: null,
    });
    assert.equal((await store.registerAccessKey(OWNER, k1, 99)).createdAt, 10);
    await store.registerAccessKey(OWNER, k2, 11);
    await assertContractErrorAsync(() => store.registerAccessKey(OTHER, k1, 12), "CONFLICT", "access_key_taken");
    assert.deepEqual(
      (await store.listAccessKeys(OWNER)).map((k) => k.accessKey),
      [k1, k2],
    );
    assert.equal((await store.revokeAccessKey(k1, 20))?.revokedAt, 20);
    assert.equal((await store.revokeAccessKey(k1, 30))?.revokedAt, 20);
    assert.equal(await store.revokeAccessKey("33".repeat(32), 30), null);
    await assertContractErrorAsync(() => store.registerAccessKey(OWNER, k1, 40), "CONFLICT", "access_key_revoked");
    assert.equal(await store.getAccessKey("44".repeat(32)), null);
    await store.close();
  });

  it("accepts a nonce once until it expires", async () => {
    const store = await SqliteStore.open({ dataDir: tempDir() });
    const now = Math.floor(Date.now() / 1000);
    assert.equal(await store.useNonce(OWNER, "n1", now + 300), true);
    assert.equal(await store.useNonce(OWNER, "n1", now + 300), false);
    assert.equal(await store.useNonce(OTHER, "n1", now + 300), true);
    const [a, b] = await Promise.all([store.useNonce(OWNER, "n2", now + 300), store.useNonce(OWNER, "n2", now + 300)]);
    assert.deepEqual([a, b].sort(), [false, true]);
    assert.equal(await store.useNonce(OWNER, "old", now - 1), true);
    assert.equal(await store.useNonce(OWNER, "old", now + 300), true);
    await store.close();
  });

  it("stores grants and lists only the contracts an identity may see", async () => {
    const store = await SqliteStore.open({ dataDir: tempDir() });
    await store.appendCommits("pub", null, testChain("pub", 1), contract());
    await store.appendCommits("priv", null, testChain("priv", 1), contract({ private: true, readers: [OTHER] }));
    await store.appendCommits("hidden", null, testChain("hidden", 1), contract({ private: true }));
    const third = "ef".repeat(32);
    assert.equal(await store.getGrant("priv", OTHER), "reader");
    const ids = async (identity: string | null) =>
      (await store.listContracts({ identity, limit: 10, offset: 0 })).contracts.map((c) => c.id).sort();
    assert.deepEqual(await ids(null), ["pub"]);
    assert.deepEqual(await ids(OTHER), ["priv", "pub"]);
    assert.deepEqual(await ids(OWNER), ["hidden", "priv", "pub"]);
    await store.setGrant("hidden", third, "writer", 5);
    assert.deepEqual(await ids(third), ["hidden", "pub"]);
    await store.setGrant("hidden", third, "none", 6);
    assert.equal(await store.getGrant("hidden", third), null);
    assert.deepEqual(await store.listGrants("priv"), [{ identity: OTHER, role: "reader" }]);
    const page = await store.listContracts({ identity: OWNER, limit: 1, offset: 1 });
    assert.equal(page.total, 3);
    assert.equal(page.contracts.length, 1);
    await store.close();
  });

  it("writes asset effects with their commits and refuses a second receipt of a SEND", async () => {
    const store = await SqliteStore.open({ dataDir: tempDir() });
    const a = testChain("a", 3);
    const b = testChain("b", 3);
    await store.appendCommits("a", null, a.slice(0, 1), contract());
    await store.appendCommits("b", null, b.slice(0, 1), contract());
    await store.appendCommits("a", a[0]!.hash, [a[1]!], {
      assetEffects: [
        { kind: "create", issuer: "a", assetId: "tok", quantity: 100, divisibility: 1, commitHash: a[1]!.hash },
      ],
    });
    await store.appendCommits("a", a[1]!.hash, [a[2]!], {
      assetEffects: [
        { kind: "send", commitHash: a[2]!.hash, from: "a", to: "b", issuer: "a", assetId: "tok", amount: 30 },
      ],
    });
    const recv = { kind: "recv" as const, sendCommitHash: a[2]!.hash, contractId: "b" };
    await store.appendCommits("b", b[0]!.hash, [b[1]!], { assetEffects: [{ ...recv, recvCommitHash: b[1]!.hash }] });
    const details = await assertContractErrorAsync(
      () => store.appendCommits("b", b[1]!.hash, [b[2]!], { assetEffects: [{ ...recv, recvCommitHash: b[2]!.hash }] }),
      "VALIDATION_FAILED",
      "already_received",
    );
    assert.equal(details.rpc_code, -32032);
    assert.equal(await store.getCommitByHash("b", b[2]!.hash), null);
    const overdraw = testChain("a", 1, a[2]!.hash, 3);
    const over = await assertContractErrorAsync(
      () =>
        store.appendCommits("a", a[2]!.hash, overdraw, {
          assetEffects: [
            {
              kind: "send",
              commitHash: overdraw[0]!.hash,
              from: "a",
              to: "b",
              issuer: "a",
              assetId: "tok",
              amount: 71,
            },
          ],
        }),
      "VALIDATION_FAILED",
    );
    assert.equal(over.rpc_code, -32024);
    assert.deepEqual(await store.getAssets("a"), {
      assets: [{ issuer: "a", assetId: "tok", quantity: 100, divisibility: 1 }],
      balances: [{ issuer: "a", assetId: "tok", amount: 70 }],
    });
    assert.deepEqual((await store.getAssets("b")).balances, [{ issuer: "a", assetId: "tok", amount: 30 }]);
    assert.equal((await store.getSend(a[2]!.hash))?.receivedBy, b[1]!.hash);
    await store.close();
  });
});
