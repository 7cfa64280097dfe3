/**
 * The hub's replays of its own store do not validate `.wasm` values again (docs/security.md,
 * "Hostile load"; docs/storage.md): a stored commit's hash is recomputed on load, so its
 * values are those checked when it was appended, and `WebAssembly.validate` of a module of
 * megabytes held the event loop for hundreds of milliseconds on every cold load, step
 * forward and subscription replay. Logs from elsewhere (`verify`, a pull) are still checked
 * in full. Shown with a module WebAssembly refuses, stored as an older hub might have: the
 * trusted replays load it, `verify` and an untrusted replay name it. Real SQLite.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { CommitEvent } from "../src/api/responses.js";
import { verifyStore } from "../src/cli/verify/verifyStore.js";
import type { Operation } from "../src/contract/Commit.js";
import { isContractError } from "../src/contract/ContractError.js";
import { computeCommitHash } from "../src/contract/commitHash.js";
import { replayLog, type StoredCommit } from "../src/contract/engine.js";
import { WASM_MEMO_MIN_CHARS } from "../src/contract/wasmValueMemo.js";
import type { Hub } from "../src/hub/Hub.js";
import { ANONYMOUS } from "../src/hub/HubApi.js";
import { Actor, cleanup, openHub, tempDir } from "./hub-fixtures.js";
import { manyFunctions } from "./support/manyFunctions.js";

after(cleanup);

const owner = new Actor("owner");
/** A module of about 130 KB that WebAssembly refuses only at its last byte (a trailing 0xff). */
const BAD = Buffer.from([...manyFunctions(17_000), 0xff]).toString("base64");
/** A small one refused the same way. */
const SMALL_BAD = Buffer.from([...manyFunctions(3), 0xff]).toString("base64");

/** The stored commit after `parent` posting `data`, as the store holds it (nothing checked). */
function storedAfter(id: string, parent: StoredCommit, data: Operation[]): StoredCommit {
  return {
    index: parent.index + 1,
    hash: computeCommitHash(id, parent.hash, data),
    parent: parent.hash,
    data,
    signatures: {},
    timestamp: parent.timestamp + 1,
    signers: [],
  };
}

/** A model-less contract created by `hub`, then a commit posting `data` appended straight to its store. */
async function withStoredModule(hub: Hub, id: string, data: Operation[]): Promise<StoredCommit> {
  await hub.createContract(owner.caller, { contract_id: id, model: null, rules: [] });
  const genesis = (await hub.store.getCommitAt(id, 0))!;
  const commit = storedAfter(id, genesis, data);
  await hub.store.appendCommits(id, genesis.hash, [commit]);
  return commit;
}

const posts = (): Operation[] => [
  { method: "post", path: "/code/big.wasm", value: BAD },
  { method: "post", path: "/code/small.wasm", value: SMALL_BAD },
];

describe("replays of the hub's own store do not validate .wasm values again", () => {
  it("a trusted replay loads the stored values; an untrusted one refuses them as wasm_invalid", async () => {
    assert.ok(BAD.length >= WASM_MEMO_MIN_CHARS);
    const hub = await openHub();
    const commit = await withStoredModule(hub, "engine1", posts());
    const log: StoredCommit[] = [];
    for await (const c of hub.store.readCommits("engine1")) log.push(c);
    await hub.close();
    assert.equal(log.at(-1)!.hash, commit.hash);

    const state = await replayLog("engine1", log, { trusted: true });
    assert.equal(state.data.get("/code/big.wasm"), BAD);
    assert.equal(state.data.get("/code/small.wasm"), SMALL_BAD);

    await assert.rejects(replayLog("engine1", log, { trusted: false }), (err: unknown) => {
      assert.ok(isContractError(err, "CORRUPTED"));
      assert.equal(err.details?.index, 1);
      assert.deepEqual(err.details?.cause, {
        code: "VALIDATION_FAILED",
        reason: "wasm_invalid",
        path: "/code/big.wasm",
        extension: ".wasm",
        operation: 0,
      });
      return true;
    });
  });

  it("a cold load, a step forward and a subscription's replay serve the stored values; verify names the commit", async () => {
    const dir = tempDir();
    const writer = await openHub(dir, { snapshotEvery: 0 });
    await writer.createContract(owner.caller, { contract_id: "hub1", model: null, rules: [] });
    // Another instance caches the contract at its genesis, before the module is stored.
    const cached = await openHub(dir, { snapshotEvery: 0 });
    assert.equal((await cached.getState(ANONYMOUS, "hub1")).commit_count, 1);
    const genesis = (await writer.store.getCommitAt("hub1", 0))!;
    const commit = storedAfter("hub1", genesis, posts());
    await writer.store.appendCommits("hub1", genesis.hash, [commit]);

    // Step forward: the cached state moves through the stored commit.
    const stepped = await cached.getState(ANONYMOUS, "hub1");
    assert.equal(stepped.head, commit.hash);
    assert.equal(stepped.commit_count, 2);
    await cached.close();

    // Cold load: a fresh instance replays the whole log.
    const fresh = await openHub(dir, { snapshotEvery: 0 });
    const events: CommitEvent[] = [];
    const done = new Promise<void>((resolve) => {
      // Subscription since 0 on an instance that has not loaded the contract: replayEvents.
      void fresh.subscribe(owner.caller, "hub1", 0, (e) => {
        events.push(e);
        if (events.length === 2) resolve();
      });
    });
    await done;
    assert.deepEqual(
      events.map((e) => e.commit.hash),
      [genesis.hash, commit.hash],
    );
    assert.equal(events[1]!.state.head, commit.hash);
    const loaded = await fresh.getState(ANONYMOUS, "hub1");
    assert.equal(loaded.head, commit.hash);
    assert.equal(loaded.commit_count, 2);

    // verify trusts nothing: the module is damage of commit 1.
    const [report] = await verifyStore(fresh.store, ["hub1"]);
    assert.equal(report!.ok, false);
    assert.equal(report!.damage?.index, 1);
    assert.equal(report!.damage?.hash, commit.hash);
    await fresh.close();
    await writer.close();
  });
});
