/**
 * The Store contract (src/store/Store.ts), as one suite every implementation must pass:
 * `storeContractSuite("SqliteStore", open, cleanup, options)` and the same for PostgresStore. Each
 * `open()` must return an EMPTY store of its own; `reopen` (optional) closes a store and
 * opens the same location again. Assertions are on codes, reasons and fields.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { computeCommitHash } from "../src/contract/commitHash.js";
import { type StoredCommit, toPulledCommit } from "../src/contract/StoredCommit.js";
import { PULL_PAGE_CHARS } from "../src/store/pullPages.js";
import type { Store } from "../src/store/Store.js";
import { assetCases } from "./store-contract-assets.js";
import { treeCases } from "./store-contract-tree.js";
import { testChain } from "./support/testChain.js";

export const OWNER = "ab".repeat(32);
export const OTHER = "cd".repeat(32);

/** The `extras` that create a contract owned by OWNER. */
export const created = (extra: { private?: boolean; readers?: string[] } = {}) => ({
  contract: { owner: OWNER, createdAt: 1_700_000_000, private: extra.private ?? false, readers: extra.readers ?? [] },
});

/** Every commit of an async iterable. */
export async function collect(it: AsyncIterable<StoredCommit>): Promise<StoredCommit[]> {
  const out: StoredCommit[] = [];
  for await (const c of it) out.push(c);
  return out;
}

/** Stores an `n`-commit chain of `id` (genesis alone first, then the rest in one append). */
export async function withChain(store: Store, id: string, n: number): Promise<StoredCommit[]> {
  const chain = testChain(id, n);
  await store.appendCommits(id, null, chain.slice(0, 1), created());
  if (n > 1) await store.appendCommits(id, chain[0]!.hash, chain.slice(1));
  return chain;
}

export interface SuiteOptions {
  /** Closes `store` and opens the same location again (persistence). */
  reopen?: (store: Store) => Promise<Store>;
  /** The `code` of the database's error for a violated UNIQUE index (SQLite's name, PostgreSQL's SQLSTATE). */
  uniqueViolation: string;
}

/** Registers the shared Store tests under `describe(name)`. */
export function storeContractSuite(
  name: string,
  open: () => Promise<Store>,
  cleanup: () => Promise<void>,
  options: SuiteOptions,
): void {
  describe(`Store contract: ${name}`, () => {
    const opened: Store[] = [];
    const fresh = async () => {
      const s = await open();
      opened.push(s);
      return s;
    };
    after(async () => {
      for (const s of opened) await s.close();
      await cleanup();
    });

    it("creates a contract with its genesis, appends a chain and reads it back", async () => {
      const store = await fresh();
      const chain = await withChain(store, "c1", 5);
      assert.deepEqual(await store.getContract("c1"), {
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
      assert.equal(await store.getCommitAt("c1", 5), null);
      assert.equal(await store.getCommitByHash("other", chain[2]!.hash), null);
      const absent = "00".repeat(32);
      assert.deepEqual(
        await store.storedHashes("c1", [chain[4]!.hash, absent, chain[0]!.hash]),
        new Set([chain[4]!.hash, chain[0]!.hash]),
      );
      assert.deepEqual(await store.storedHashes("other", [chain[0]!.hash]), new Set());
      assert.deepEqual(await store.storedHashes("c1", []), new Set());
      assert.equal(await store.getContract("nope"), null);
    });

    it("returns commit data, signatures and attestations exactly as given", async () => {
      const store = await fresh();
      const genesis = testChain("x", 1)[0]!;
      await store.appendCommits("x", null, [genesis], created());
      // Key order, big and fractional numbers, escapes and non-ASCII text are hash inputs.
      const data = [
        {
          method: "post" as const,
          path: "/v.json",
          value: { z: 1, a: [9007199254740991, 0.1, 1.5e-7, -2], "é\u2028": "\u0000😀" },
        },
      ];
      const commit: StoredCommit = {
        index: 1,
        hash: computeCommitHash("x", genesis.hash, data),
        parent: genesis.hash,
        data,
        signatures: { [`ed25519:${OWNER}`]: "ff".repeat(64), "/parties/b": "ee".repeat(64) },
        attestations: [{ oracle: OTHER, claim: "price", value: { usd: 12.5 }, signature: "dd".repeat(64) }],
        timestamp: 1_700_000_123,
        signers: [OWNER, OTHER],
      };
      await store.appendCommits("x", genesis.hash, [commit]);
      const back = await store.getCommitAt("x", 1);
      assert.deepEqual(back, commit);
      // Serialised again, each JSON column gives the same text: key order and numbers kept.
      for (const k of ["data", "signatures", "attestations"] as const)
        assert.equal(JSON.stringify(back![k]), JSON.stringify(commit[k]));
      assert.equal(computeCommitHash("x", back!.parent, back!.data), commit.hash);
      assert.equal((await store.getCommitAt("x", 0))!.attestations, undefined);
    });

    it("streams pull entries joined from the stored columns, byte for byte the serialisation of the parsed commit", async () => {
      const store = await fresh();
      const genesis = testChain("w", 1)[0]!;
      await store.appendCommits("w", null, [genesis], created());
      const data = [
        { method: "action" as const, value: "go" },
        { method: "post" as const, path: "/v.json", value: { z: 1, a: [1.5e-7, -0], "é\u2028": '"\\\u0000😀' } },
      ];
      const withAttestation: StoredCommit = {
        index: 1,
        hash: computeCommitHash("w", genesis.hash, data),
        parent: genesis.hash,
        data,
        signatures: { [`ed25519:${OWNER}`]: "ff".repeat(64) },
        attestations: [{ oracle: OTHER, claim: "price", value: { usd: 12.5 }, signature: "dd".repeat(64) }],
        timestamp: 1_700_000_123,
        signers: [OWNER],
      };
      await store.appendCommits("w", genesis.hash, [withAttestation]);
      await store.appendCommits("w", withAttestation.hash, testChain("w", 1200, withAttestation.hash, 2));
      const stored = await collect(store.readCommits("w"));
      const pages: string[][] = [];
      for await (const page of store.readPullTexts("w", 0, 9999)) pages.push(page);
      assert.deepEqual(
        pages.flat(),
        stored.map((c) => JSON.stringify(toPulledCommit(c))),
      );
      assert.ok(pages.length > 1, "a long log comes in more than one page");
      const window: string[] = [];
      for await (const page of store.readPullTexts("w", 1, 3)) window.push(...page);
      assert.deepEqual(
        window,
        stored.slice(1, 3).map((c) => JSON.stringify(toPulledCommit(c))),
      );
      for await (const _ of store.readPullTexts("missing", 0, 10)) assert.fail("an absent contract has no entries");
    });

    it("cuts pull pages at PULL_PAGE_CHARS characters of entries (at least one), keeps the long pages of small commits, every entry in order", async () => {
      const store = await fresh();
      const [genesis] = await withChain(store, "pb", 1);
      // Runs of commits: entries of ~600 k characters (alone past the bound), short ones, ~200 k
      // ones (two to a page), and ~400 kB of UTF-8 that is ~200 k characters.
      const runs: [count: number, salt: string][] = [
        [3, "x".repeat(300_000)],
        [1500, ""],
        [20, "y".repeat(100_000)],
        [3, "é".repeat(100_000)],
        [5, ""],
      ];
      let parent = genesis!.hash;
      let start = 1;
      for (const [count, salt] of runs) {
        const run = testChain("pb", count, parent, start, salt);
        for (let i = 0; i < run.length; i += 100) {
          await store.appendCommits("pb", parent, run.slice(i, i + 100));
          parent = run[Math.min(i + 100, run.length) - 1]!.hash;
        }
        start += count;
      }
      const expected = (await collect(store.readCommits("pb"))).map((c) => JSON.stringify(toPulledCommit(c)));
      const chars = (page: string[]) => page.reduce((sum, text) => sum + text.length, 0);
      const pages: string[][] = [];
      for await (const page of store.readPullTexts("pb", 0, start)) pages.push(page);
      assert.deepEqual(pages.flat(), expected);
      for (const page of pages) {
        assert.ok(page.length >= 1 && page.length <= 1024, `${page.length} entries`);
        if (page.length > 1)
          assert.ok(chars(page) <= PULL_PAGE_CHARS, `${page.length} entries, ${chars(page)} characters`);
      }
      assert.ok(
        pages.some((page) => page.length >= 900),
        "small commits keep their long pages",
      );
      assert.deepEqual(
        pages.filter((page) => page.some((text) => text.length > 500_000)).map((page) => page.length),
        [1, 1, 1],
      );
      // A window that starts and ends inside the runs of long entries.
      const window: string[] = [];
      for await (const page of store.readPullTexts("pb", 2, 1515)) {
        assert.ok(page.length === 1 || chars(page) <= PULL_PAGE_CHARS);
        window.push(...page);
      }
      assert.deepEqual(window, expected.slice(2, 1515));
    });

    it("keeps the newest state snapshot of each contract; an older one never replaces it, one as long that differs does", async () => {
      const store = await fresh();
      const chain = await withChain(store, "s", 3);
      const other = await withChain(store, "t", 1);
      const snap = (contractId: string, length: number, head: string) => ({
        contractId,
        length,
        head,
        format: 1,
        state: `{"length":${length}}`,
        digest: String(length).repeat(64).slice(0, 64),
      });
      assert.equal(await store.readSnapshot("s"), null);
      await store.saveSnapshot(snap("s", 2, chain[1]!.hash));
      await store.saveSnapshot(snap("s", 3, chain[2]!.hash));
      await store.saveSnapshot(snap("s", 1, chain[0]!.hash));
      await store.saveSnapshot(snap("t", 1, other[0]!.hash));
      assert.deepEqual(await store.readSnapshot("s"), snap("s", 3, chain[2]!.hash));
      assert.deepEqual(await store.listSnapshots(), [snap("s", 3, chain[2]!.hash), snap("t", 1, other[0]!.hash)]);
      // One as long that differs (the stored one was damaged, or of another format) replaces it.
      const rewritten = { ...snap("s", 3, chain[2]!.hash), format: 2, state: '{"rewritten":3}' };
      await store.saveSnapshot(rewritten);
      assert.deepEqual(await store.readSnapshot("s"), rewritten);
      await store.saveSnapshot(snap("s", 2, chain[1]!.hash));
      assert.deepEqual(await store.readSnapshot("s"), rewritten);
    });

    it("answers a stale head with CONFLICT naming the stored head, and stores nothing", async () => {
      const store = await fresh();
      const chain = await withChain(store, "c1", 3);
      const fork = testChain("c1", 2, chain[1]!.hash, 2, "fork");
      const details = await assertContractErrorAsync(
        () => store.appendCommits("c1", chain[1]!.hash, fork),
        "CONFLICT",
        "stale_parent",
      );
      assert.equal(details.head, chain[2]!.hash);
      assert.equal(details.contract_id, "c1");
      const again = await assertContractErrorAsync(
        () => store.appendCommits("c1", null, testChain("c1", 1), created()),
        "CONFLICT",
        "contract_exists",
      );
      assert.equal(again.head, chain[2]!.hash);
      const missing = await assertContractErrorAsync(
        () => store.appendCommits("ghost", chain[0]!.hash, testChain("ghost", 2).slice(1)),
        "CONFLICT",
        "stale_parent",
      );
      assert.equal(missing.head, null);
      assert.equal((await store.getContract("c1"))!.length, 3);
      assert.equal(await store.getCommitByHash("c1", fork[0]!.hash), null);
      assert.equal(await store.getContract("ghost"), null);
    });

    it("does not name a private contract's head to a creation that lost the race for its id", async () => {
      // Two instances creating one id at once: the loser's store call is the one that learns of
      // the other contract, and the head of a private one is told only to its readers.
      const store = await fresh();
      await store.appendCommits("p1", null, testChain("p1", 1), created({ private: true }));
      const details = await assertContractErrorAsync(
        () => store.appendCommits("p1", null, testChain("p1", 1, null, 0, "rival"), created()),
        "CONFLICT",
        "contract_exists",
      );
      assert.equal(details.contract_id, "p1");
      assert.equal("head" in details, false);
    });

    it("refuses to create a contract without its record", async () => {
      const store = await fresh();
      await assertContractErrorAsync(() => store.appendCommits("c1", null, testChain("c1", 1)), "INTERNAL");
      await assertContractErrorAsync(() => store.appendCommits("c1", null, [], created()), "INTERNAL");
      assert.equal(await store.getContract("c1"), null);
    });

    it("stores all commits of an append or none", async () => {
      const store = await fresh();
      const chain = await withChain(store, "c1", 2);
      const next = testChain("c1", 3, chain[1]!.hash, 2);
      const misplaced = [next[0]!, next[1]!, { ...next[2]!, index: 9 }];
      await assertContractErrorAsync(() => store.appendCommits("c1", chain[1]!.hash, misplaced), "INTERNAL");
      const orphan = [next[0]!, { ...next[1]!, parent: chain[0]!.hash }];
      await assertContractErrorAsync(() => store.appendCommits("c1", chain[1]!.hash, orphan), "INTERNAL");
      assert.equal(await store.getCommitByHash("c1", next[0]!.hash), null);
      const after = (await store.getContract("c1"))!;
      assert.deepEqual([after.head, after.length], [chain[1]!.hash, 2]);
      // The same commits, well placed, are then accepted.
      await store.appendCommits("c1", chain[1]!.hash, next);
      assert.equal((await store.getContract("c1"))!.length, 5);
    });

    it("refuses a commit whose hash is stored already, in its own contract or another, and stores nothing", async () => {
      // A hash covers its contract id, so valid commits never repeat one: the unique index on
      // hash is the last line of defence, and its violation fails the whole append.
      const store = await fresh();
      const chain = await withChain(store, "c1", 2);
      const violates = (err: unknown) => (err as { code?: unknown }).code === options.uniqueViolation;
      const again = { ...testChain("c1", 1, chain[1]!.hash, 2)[0]!, hash: chain[0]!.hash };
      await assert.rejects(store.appendCommits("c1", chain[1]!.hash, [again]), violates);
      const elsewhere = { ...testChain("c2", 1)[0]!, hash: chain[1]!.hash };
      await assert.rejects(store.appendCommits("c2", null, [elsewhere], created()), violates);
      const c1 = (await store.getContract("c1"))!;
      assert.deepEqual([c1.head, c1.length], [chain[1]!.hash, 2]);
      assert.equal(await store.getContract("c2"), null);
      assert.equal(await store.treeSize(), 2);
    });

    it("lets exactly one of concurrent appends on one head win", async () => {
      const store = await fresh();
      const chain = await withChain(store, "c1", 1);
      const rivals = Array.from({ length: 12 }, (_, i) => testChain("c1", 2, chain[0]!.hash, 1, `r${i}`));
      const results = await Promise.allSettled(rivals.map((r) => store.appendCommits("c1", chain[0]!.hash, r)));
      const won = results.flatMap((r, i) => (r.status === "fulfilled" ? [i] : []));
      assert.equal(won.length, 1);
      for (const r of results)
        if (r.status === "rejected") assert.equal((r.reason as { code: string }).code, "CONFLICT");
      const stored = await collect(store.readCommits("c1"));
      assert.deepEqual(stored, [chain[0]!, ...rivals[won[0]!]!]);
    });

    it("lets exactly one of concurrent creations of a contract win", async () => {
      const store = await fresh();
      const rivals = Array.from({ length: 8 }, (_, i) => [{ ...testChain("c1", 1)[0]!, timestamp: 1_700_000_000 + i }]);
      const results = await Promise.allSettled(rivals.map((r) => store.appendCommits("c1", null, r, created())));
      assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
      for (const r of results)
        if (r.status === "rejected") assert.equal((r.reason as { code: string }).code, "CONFLICT");
      assert.equal((await store.getContract("c1"))!.length, 1);
    });

    it("streams commits in order, page by page, bounded by the length when the read started", async () => {
      const store = await fresh();
      const chain = await withChain(store, "c1", 2600);
      assert.deepEqual(
        (await collect(store.readCommits("c1", 4, 8))).map((c) => c.index),
        [4, 5, 6, 7],
      );
      assert.deepEqual(await collect(store.readCommits("c1", 2598, 9999)), chain.slice(2598));
      assert.deepEqual(await collect(store.readCommits("c1", 7, 7)), []);
      let expected = 0;
      let appended = false;
      for await (const c of store.readCommits("c1")) {
        assert.equal(c.index, expected++);
        assert.equal(c.hash, chain[c.index]!.hash);
        if (!appended) {
          appended = true;
          await store.appendCommits("c1", chain[2599]!.hash, testChain("c1", 2, chain[2599]!.hash, 2600));
        }
      }
      assert.equal(expected, 2600);
      assert.equal((await collect(store.readCommits("c1"))).length, 2602);
      assert.deepEqual(await collect(store.readCommits("missing")), []);
    });

    if (options.reopen !== undefined) {
      const reopen = options.reopen;
      it("keeps everything across close and reopen", async () => {
        const store = await open();
        const chain = await withChain(store, "c1", 4);
        await store.registerAccessKey(OWNER, OTHER, 5);
        await store.setGrant("c1", OTHER, "writer", 6);
        const reopened = await reopen(store);
        opened.push(reopened);
        assert.deepEqual(await collect(reopened.readCommits("c1")), chain);
        assert.equal((await reopened.getAccessKey(OTHER))?.identity, OWNER);
        assert.equal(await reopened.getGrant("c1", OTHER), "writer");
        await reopened.appendCommits("c1", chain[3]!.hash, testChain("c1", 1, chain[3]!.hash, 4));
        assert.equal((await reopened.getContract("c1"))!.length, 5);
      });
    }

    it("registers, lists and revokes access keys; a revoked or foreign key cannot be registered", async () => {
      const store = await fresh();
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
      assert.deepEqual(await store.listAccessKeys(OTHER), []);
      assert.equal((await store.revokeAccessKey(k1, 20))?.revokedAt, 20);
      assert.equal((await store.revokeAccessKey(k1, 30))?.revokedAt, 20);
      assert.equal(await store.revokeAccessKey("33".repeat(32), 30), null);
      await assertContractErrorAsync(() => store.registerAccessKey(OWNER, k1, 40), "CONFLICT", "access_key_revoked");
      await assertContractErrorAsync(() => store.registerAccessKey(OTHER, k1, 40), "CONFLICT", "access_key_revoked");
      assert.deepEqual(await store.getAccessKey(k2), {
        accessKey: k2,
        identity: OWNER,
        createdAt: 11,
        revokedAt: null,
      });
      assert.equal(await store.getAccessKey("44".repeat(32)), null);
    });

    it("gives a key raced for by two identities to exactly one of them", async () => {
      const store = await fresh();
      const key = "55".repeat(32);
      const results = await Promise.allSettled([
        store.registerAccessKey(OWNER, key, 1),
        store.registerAccessKey(OTHER, key, 1),
        store.registerAccessKey(OWNER, key, 1),
        store.registerAccessKey(OTHER, key, 1),
      ]);
      const owner = (await store.getAccessKey(key))!.identity;
      results.forEach((r, i) => {
        const identity = i % 2 === 0 ? OWNER : OTHER;
        if (identity === owner) assert.equal(r.status, "fulfilled");
        else {
          assert.equal(r.status, "rejected");
          assert.equal((r as PromiseRejectedResult).reason.details.reason, "access_key_taken");
        }
      });
    });

    it("accepts a nonce once until it expires", async () => {
      const store = await fresh();
      const now = Math.floor(Date.now() / 1000);
      assert.equal(await store.useNonce(OWNER, "n1", now + 300), true);
      assert.equal(await store.useNonce(OWNER, "n1", now + 300), false);
      assert.equal(await store.useNonce(OTHER, "n1", now + 300), true);
      const racers = await Promise.all(Array.from({ length: 8 }, () => store.useNonce(OWNER, "n2", now + 300)));
      assert.equal(racers.filter(Boolean).length, 1);
      assert.equal(await store.useNonce(OWNER, "old", now - 10), true);
      assert.equal(await store.useNonce(OWNER, "old", now + 300), true);
      assert.equal(await store.useNonce(OWNER, "old", now + 300), false);
    });

    it("stores grants and lists only the contracts an identity may see", async () => {
      const store = await fresh();
      await store.appendCommits("pub", null, testChain("pub", 1), created());
      await store.appendCommits("priv", null, testChain("priv", 1), created({ private: true, readers: [OTHER] }));
      await store.appendCommits("hidden", null, testChain("hidden", 1), created({ private: true }));
      const third = "ef".repeat(32);
      assert.equal(await store.getGrant("priv", OTHER), "reader");
      assert.equal((await store.getContract("priv"))!.private, true);
      const ids = async (identity: string | null) =>
        (await store.listContracts({ identity, limit: 10, offset: 0 })).contracts.map((c) => c.id).sort();
      assert.deepEqual(await ids(null), ["pub"]);
      assert.deepEqual(await ids(OTHER), ["priv", "pub"]);
      assert.deepEqual(await ids(OWNER), ["hidden", "priv", "pub"]);
      await store.setGrant("hidden", third, "writer", 5);
      assert.equal(await store.getGrant("hidden", third), "writer");
      assert.deepEqual(await ids(third), ["hidden", "pub"]);
      await store.setGrant("hidden", third, "reader", 6);
      assert.deepEqual(await store.listGrants("hidden"), [{ identity: third, role: "reader" }]);
      await store.setGrant("hidden", third, "none", 7);
      assert.equal(await store.getGrant("hidden", third), null);
      assert.deepEqual(await store.listGrants("priv"), [{ identity: OTHER, role: "reader" }]);
      const page = await store.listContracts({ identity: OWNER, limit: 1, offset: 1 });
      assert.equal(page.total, 3);
      assert.equal(page.contracts.length, 1);
      assert.equal((await store.listContracts({ identity: null, limit: 10, offset: 0 })).total, 1);
    });

    it("shows a private contract to the identities at its .id paths, the last write per path", async () => {
      const store = await fresh();
      const third = "ef".repeat(32);
      const chain = testChain("p", 3);
      await store.appendCommits("p", null, chain.slice(0, 1), created({ private: true }));
      await store.appendCommits("p", chain[0]!.hash, [chain[1]!], {
        parties: [
          { path: "/users/a.id", identity: OTHER },
          { path: "/users/b.id", identity: OTHER },
          { path: "/users/b.id", identity: third },
        ],
      });
      const sees = async (identity: string) =>
        (await store.listContracts({ identity, limit: 10, offset: 0 })).contracts.map((c) => c.id);
      assert.deepEqual([await sees(OTHER), await sees(third)], [["p"], ["p"]]);
      await store.appendCommits("p", chain[1]!.hash, [chain[2]!], {
        parties: [{ path: "/users/b.id", identity: OTHER }],
      });
      assert.deepEqual([await sees(OTHER), await sees(third)], [["p"], []]);
      assert.equal((await store.listContracts({ identity: OTHER, limit: 10, offset: 0 })).total, 1);
    });

    it("counts successful appends and write requests", async () => {
      const store = await fresh();
      const before = store.stats();
      const chain = await withChain(store, "c1", 3);
      await assert.rejects(store.appendCommits("c1", chain[0]!.hash, testChain("c1", 1, chain[0]!.hash, 1)));
      await store.useNonce(OWNER, "s", Math.floor(Date.now() / 1000) + 60);
      const s = store.stats();
      assert.equal(s.appends - before.appends, 2);
      assert.ok(s.writes - before.writes >= 4, `writes ${s.writes - before.writes}`);
      assert.ok(s.transactions > before.transactions && s.transactions <= s.writes);
    });

    assetCases(fresh);
    treeCases(fresh, options.reopen);
  });
}
