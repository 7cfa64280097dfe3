/**
 * A big append to the SQLite store reaches its writer thread in parts (docs/storage.md, "The
 * writer thread and group commit"): the rows go ahead in "part" messages, staged by the
 * thread, and the append's own message commits them all in one transaction. Whatever fails in
 * between (a row that cannot be built, a broken chain, the thread's death), the append is
 * refused and nothing of it is stored.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, describe, it } from "node:test";
import { Worker } from "node:worker_threads";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { PART_ROWS } from "../src/store/sqlite/appendInParts.js";
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { collect, created } from "./store-contract.js";
import { testChain } from "./support/testChain.js";

/** More commits than two parts hold, so the append always goes in parts. */
const COMMITS = 2 * PART_ROWS + 500;

const postMessage = Worker.prototype.postMessage;
/** The names of the requests posted to the writer thread, in order. */
let posted: string[] = [];
/** Called with each message posted to a worker after it was posted. */
let afterPost: (worker: Worker, names: string[]) => void = () => {};
Worker.prototype.postMessage = function (this: Worker, value: unknown, transfer?: never) {
  postMessage.call(this, value, transfer);
  const names = Array.isArray(value) ? value.map((r: { name?: unknown }) => String(r?.name)) : [];
  posted.push(...names);
  afterPost(this, names);
};

describe("SqliteStore: appends in parts", () => {
  const dirs: string[] = [];
  const stores: SqliteStore[] = [];
  const open = async () => {
    const dir = mkdtempSync(join(tmpdir(), "append-parts-"));
    dirs.push(dir);
    const store = await SqliteStore.open({ dataDir: dir });
    stores.push(store);
    return store;
  };
  afterEach(() => {
    posted = [];
    afterPost = () => {};
  });
  after(async () => {
    Worker.prototype.postMessage = postMessage;
    for (const s of stores) await s.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("stores a big append sent in parts as one append, in order", async () => {
    const store = await open();
    const chain = testChain("big", COMMITS);
    posted = [];
    await store.appendCommits("big", null, chain, created());
    assert.ok(posted.filter((n) => n === "part").length >= 2, "the rows went ahead in parts");
    assert.deepEqual(posted.slice(-1), ["appendCommits"]);
    assert.deepEqual(
      (await collect(store.readCommits("big"))).map((c) => c.hash),
      chain.map((c) => c.hash),
    );
    assert.deepEqual([chain[0]!.leafIndex, chain.at(-1)!.leafIndex], [0, COMMITS - 1]);
    assert.equal((await store.getContract("big"))?.length, COMMITS);
  });

  it("sends a single commit as one message, without parts", async () => {
    const store = await open();
    const chain = testChain("one", 2);
    await store.appendCommits("one", null, chain.slice(0, 1), created());
    posted = [];
    await store.appendCommits("one", chain[0]!.hash, chain.slice(1));
    assert.deepEqual(posted, ["appendCommits"]);
  });

  it("stores nothing when a commit of the last part breaks the chain", async () => {
    const store = await open();
    const chain = testChain("broken", COMMITS);
    chain[COMMITS - 2] = { ...chain[COMMITS - 2]!, parent: chain[0]!.hash };
    await assertContractErrorAsync(() => store.appendCommits("broken", null, chain, created()), "INTERNAL");
    assert.equal(await store.getContract("broken"), null);
    // The thread is fine: the same contract is created afterwards.
    await store.appendCommits("broken", null, testChain("broken", COMMITS), created());
    assert.equal((await store.getContract("broken"))?.length, COMMITS);
  });

  it("stores nothing and discards the parts sent when a row cannot be built", async () => {
    const store = await open();
    const chain = testChain("unbuildable", COMMITS);
    // JSON.stringify throws on a BigInt: the append fails on the main thread after parts went.
    (chain[COMMITS - 10]!.data as unknown[]).push(1n);
    await assert.rejects(store.appendCommits("unbuildable", null, chain, created()), TypeError);
    assert.ok(posted.includes("part") && posted.includes("discard"), "parts were sent, then discarded");
    assert.ok(!posted.includes("appendCommits"));
    assert.equal(await store.getContract("unbuildable"), null);
  });

  it("stores nothing when the writer thread dies between parts, and works on with a new one", async () => {
    const store = await open();
    const chain = testChain("orphaned", 1 + COMMITS);
    await store.appendCommits("orphaned", null, chain.slice(0, 1), created());
    let parts = 0;
    afterPost = (worker, names) => {
      if (names.includes("part") && ++parts === 1) void worker.terminate();
    };
    await assert.rejects(store.appendCommits("orphaned", chain[0]!.hash, chain.slice(1)));
    afterPost = () => {};
    assert.equal((await store.getContract("orphaned"))?.length, 1);
    // Reopened (a new connection, as after a restart), the file holds the genesis alone.
    const reopened = await SqliteStore.open({ dataDir: store.path.replace(/[/\\]hub\.sqlite$/, "") });
    stores.push(reopened);
    assert.equal((await reopened.getContract("orphaned"))?.length, 1);
    // The next append starts a new thread and stores the whole push.
    await store.appendCommits("orphaned", chain[0]!.hash, chain.slice(1));
    assert.equal((await store.getContract("orphaned"))?.length, 1 + COMMITS);
  });
});
