/**
 * The Merkle-tree part of the Store contract (src/store/Store.ts): leaves numbered in the
 * append transaction across contracts, no gap after a refused append, no gap or repeat under
 * concurrent appends, nodes that give the reference root, and a log key and origin that stay.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { publicKeyFromSeed } from "../src/contract/keys.js";
import type { StoredCommit } from "../src/contract/StoredCommit.js";
import type { Store } from "../src/store/Store.js";
import { leafHash, nodeHash, verifyInclusion } from "../src/tlog/merkle.js";
import { proveInclusion, treeRoot } from "../src/tlog/proofs.js";
import { testChain } from "./support/testChain.js";

/** RFC 9162's MTH over commit hashes, computed directly (no stored node involved). */
export function referenceRoot(hashes: readonly string[]): Buffer {
  if (hashes.length === 0) return createHash("sha256").digest();
  if (hashes.length === 1) return leafHash(Buffer.from(hashes[0]!, "hex"));
  let k = 1;
  while (k * 2 < hashes.length) k *= 2;
  return nodeHash(referenceRoot(hashes.slice(0, k)), referenceRoot(hashes.slice(k)));
}

const owner = "ab".repeat(32);
const create = { contract: { owner, createdAt: 1_700_000_000, private: false, readers: [] } };

/** Hashes of every stored commit in leaf order, read through findLeaf. */
async function hashesInLeafOrder(store: Store, commits: readonly StoredCommit[]): Promise<string[]> {
  const byLeaf: string[] = [];
  for (const c of commits) {
    const leaf = await store.findLeaf(c.hash);
    assert.ok(leaf !== null, `leaf of ${c.hash}`);
    assert.equal(byLeaf[leaf.leafIndex], undefined, `leaf ${leaf.leafIndex} given twice`);
    byLeaf[leaf.leafIndex] = c.hash;
  }
  return byLeaf;
}

export function treeCases(fresh: () => Promise<Store>, reopen?: (s: Store) => Promise<Store>): void {
  it("numbers commits as leaves across contracts in append order, and skips none after a refusal", async () => {
    const store = await fresh();
    assert.equal(await store.treeSize(), 0);
    const a = testChain("ta", 3);
    const b = testChain("tb", 2);
    await store.appendCommits("ta", null, a.slice(0, 1), create);
    await store.appendCommits("tb", null, b, create);
    await assert.rejects(store.appendCommits("ta", b[1]!.hash, a.slice(1)));
    await store.appendCommits("ta", a[0]!.hash, a.slice(1));
    assert.deepEqual(
      [...a, ...b].map((c) => c.leafIndex),
      [0, 3, 4, 1, 2],
    );
    assert.equal(await store.treeSize(), 5);
    assert.deepEqual(await store.findLeaf(a[2]!.hash), { contractId: "ta", index: 2, leafIndex: 4 });
    assert.equal(await store.findLeaf("00".repeat(32)), null);
    assert.equal((await store.getCommitAt("tb", 1))!.leafIndex, 2);
    const order = [a[0]!, b[0]!, b[1]!, a[1]!, a[2]!].map((c) => c.hash);
    const read = (ids: Parameters<Store["readTreeNodes"]>[0]) => store.readTreeNodes(ids);
    for (let n = 1; n <= 5; n++) assert.deepEqual(await treeRoot(read, n), referenceRoot(order.slice(0, n)));
    const proof = await proveInclusion(read, 3, 5);
    assert.ok(verifyInclusion(leafHash(Buffer.from(order[3]!, "hex")), 3, 5, proof, referenceRoot(order)));
  });

  it("reads a leaf as the hash of its commit's hash, and a node it does not hold as missing", async () => {
    const store = await fresh();
    const chain = testChain("tl", 3);
    await store.appendCommits("tl", null, chain, create);
    const nodes = await store.readTreeNodes([
      { level: 0, index: 2 },
      { level: 1, index: 0 },
    ]);
    assert.deepEqual(nodes.get("0:2"), leafHash(Buffer.from(chain[2]!.hash, "hex")));
    assert.deepEqual(nodes.get("1:0"), referenceRoot(chain.slice(0, 2).map((c) => c.hash)));
    for (const id of [
      { level: 0, index: 3 },
      { level: 1, index: 1 },
    ]) {
      const details = await assertContractErrorAsync(() => store.readTreeNodes([id]), "CORRUPTED", "tree_node_missing");
      assert.equal(details.node, `${id.level}:${id.index}`);
    }
  });

  it("keeps the tree right across single appends and one refused after its leaves were numbered", async () => {
    // One commit per append, so an append combines with the frontier the previous one left;
    // the refused append (a hash stored already fails its insert, after the leaves) must
    // leave nothing of its tree behind, for the appends after it.
    const store = await fresh();
    const chain = testChain("tr", 9);
    await store.appendCommits("tr", null, chain.slice(0, 1), create);
    const order = [chain[0]!.hash];
    for (let i = 1; i < chain.length; i++) {
      if (i === 4 || i === 7) {
        const again = { ...testChain("tr", 1, chain[i - 1]!.hash, i)[0]!, hash: chain[0]!.hash };
        await assert.rejects(store.appendCommits("tr", chain[i - 1]!.hash, [again]));
        assert.equal(await store.treeSize(), i);
      }
      await store.appendCommits("tr", chain[i - 1]!.hash, [chain[i]!]);
      order.push(chain[i]!.hash);
    }
    const read = (ids: Parameters<Store["readTreeNodes"]>[0]) => store.readTreeNodes(ids);
    assert.deepEqual(
      chain.map((c) => c.leafIndex),
      chain.map((_, i) => i),
    );
    for (let n = 1; n <= order.length; n++) assert.deepEqual(await treeRoot(read, n), referenceRoot(order.slice(0, n)));
  });

  it("concurrent appends of many contracts take every leaf exactly once", async () => {
    const store = await fresh();
    const chains = Array.from({ length: 12 }, (_, i) => testChain(`tc${i}`, 4));
    await Promise.all(
      chains.map(async (chain, i) => {
        await store.appendCommits(`tc${i}`, null, chain.slice(0, 1), create);
        await store.appendCommits(`tc${i}`, chain[0]!.hash, chain.slice(1, 3));
        await store.appendCommits(`tc${i}`, chain[2]!.hash, chain.slice(3));
      }),
    );
    const all = chains.flat();
    const order = await hashesInLeafOrder(store, all);
    assert.equal(order.length, all.length);
    assert.equal(await store.treeSize(), all.length);
    const read = (ids: Parameters<Store["readTreeNodes"]>[0]) => store.readTreeNodes(ids);
    assert.deepEqual(await treeRoot(read, all.length), referenceRoot(order));
  });

  it("keeps its tree and its log key across a reopen", { skip: reopen === undefined }, async () => {
    let store = await fresh();
    const seed = await store.logKeySeed();
    assert.equal(seed.length, 32);
    assert.deepEqual(await store.logKeySeed(), seed);
    const chain = testChain("tr", 3);
    await store.appendCommits("tr", null, chain, create);
    store = await reopen!(store);
    assert.deepEqual(await store.logKeySeed(), seed);
    assert.equal(await store.treeSize(), 3);
    const read = (ids: Parameters<Store["readTreeNodes"]>[0]) => store.readTreeNodes(ids);
    assert.deepEqual(await treeRoot(read, 3), referenceRoot(chain.map((c) => c.hash)));
    const next = testChain("tr", 4).slice(3);
    await store.appendCommits("tr", chain[2]!.hash, next);
    assert.equal(next[0]!.leafIndex, 3);
    await store.close();
  });

  it("records the first log key it is given, keeps it across a reopen, and makes no seed beside a key it does not hold", async () => {
    let store = await fresh();
    const [a, b, c] = [randomBytes(32), randomBytes(32), randomBytes(32)];
    const origins = new Map([a, b, c].map((k, i) => [k.toString("hex"), `log/${i}`]));
    // At once: one is recorded with its origin, and every caller gets that one.
    const answers = await Promise.all([a, b, c].map((k) => store.recordLogKey(k, origins.get(k.toString("hex"))!)));
    const first = answers[0]!;
    assert.ok([a, b, c].some((k) => k.equals(first.publicKey)));
    assert.equal(first.origin, origins.get(first.publicKey.toString("hex")));
    for (const answer of answers) assert.deepEqual(answer, first);
    assert.deepEqual(await store.recordLogKey(randomBytes(32), "log/other"), first);
    // Its own key with another origin changes nothing either: the first origin stays.
    assert.deepEqual(await store.recordLogKey(first.publicKey, "log/other"), first);
    if (reopen !== undefined) store = await reopen(store);
    assert.deepEqual(await store.recordLogKey(randomBytes(32), "log/other"), first);
    // The recorded key was given to the hub (a --log-key file): the store holds no seed of it.
    await assertContractErrorAsync(() => store.logKeySeed(), "INTERNAL", "log_key_mismatch");
    await store.close();
  });

  it("records the key of its own seed like any other", async () => {
    const store = await fresh();
    const seed = await store.logKeySeed();
    const own = publicKeyFromSeed(seed);
    assert.deepEqual(await store.recordLogKey(own, "log/own"), { publicKey: own, origin: "log/own" });
    assert.deepEqual(await store.recordLogKey(randomBytes(32), "log/own"), { publicKey: own, origin: "log/own" });
    assert.deepEqual(await store.logKeySeed(), seed);
    await store.close();
  });

  it("keeps the newest cosigned checkpoint: only a larger tree replaces it, whatever the order", async () => {
    const store = await fresh();
    const cp = (size: number, note = `note of ${size}\n`) => ({
      checkpoint: note,
      size,
      root: size.toString(16).padStart(64, "0"),
    });
    assert.equal(await store.readCosignedCheckpoint(), null);
    assert.equal(await store.saveCosignedCheckpoint(cp(5)), true);
    assert.equal(await store.saveCosignedCheckpoint(cp(3)), false);
    assert.equal(await store.saveCosignedCheckpoint(cp(5, "another note of 5\n")), false);
    assert.deepEqual(await store.readCosignedCheckpoint(), cp(5));
    assert.equal(await store.saveCosignedCheckpoint(cp(9)), true);
    assert.deepEqual(await store.readCosignedCheckpoint(), cp(9));
    // At once: the largest stays, the smaller ones report that they were not stored.
    const sizes = [10, 14, 11, 8, 12];
    const stored = await Promise.all(sizes.map((n) => store.saveCosignedCheckpoint(cp(n))));
    assert.equal(stored[1], true);
    assert.equal(stored[3], false);
    assert.deepEqual(await store.readCosignedCheckpoint(), cp(14));
  });
}
