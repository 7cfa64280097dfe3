import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import fc from "fast-check";
import {
  appendNodes,
  EMPTY_ROOT,
  leafHash,
  type NodeId,
  nodeKey,
  verifyConsistency,
  verifyInclusion,
} from "./merkle.js";
import { frontierOf, proveConsistency, proveInclusion, type ReadNodes, treeRoot } from "./proofs.js";

// An independent reference, written straight from RFC 9162 §2.1: recursive definitions over
// the list of leaves (MTH, PATH, PROOF) and the two verification algorithms, with BigInt
// shifts, sharing no code with the module under test.
const sha = (...parts: Uint8Array[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest();
};
const refLeaf = (d: Uint8Array) => sha(Buffer.from([0]), d);
const refNode = (l: Uint8Array, r: Uint8Array) => sha(Buffer.from([1]), l, r);
const largestPow2Below = (n: number) => 2 ** Math.ceil(Math.log2(n) - 1);

function mth(d: Buffer[]): Buffer {
  if (d.length === 0) return sha();
  if (d.length === 1) return refLeaf(d[0]!);
  const k = largestPow2Below(d.length);
  return refNode(mth(d.slice(0, k)), mth(d.slice(k)));
}

function path(m: number, d: Buffer[]): Buffer[] {
  if (d.length === 1) return [];
  const k = largestPow2Below(d.length);
  return m < k ? [...path(m, d.slice(0, k)), mth(d.slice(k))] : [...path(m - k, d.slice(k)), mth(d.slice(0, k))];
}

function subproof(m: number, d: Buffer[], b: boolean): Buffer[] {
  if (m === d.length) return b ? [] : [mth(d)];
  const k = largestPow2Below(d.length);
  return m <= k
    ? [...subproof(m, d.slice(0, k), b), mth(d.slice(k))]
    : [...subproof(m - k, d.slice(k), false), mth(d.slice(0, k))];
}

function refVerifyInclusion(leaf: Buffer, index: number, size: number, proof: Buffer[], root: Buffer): boolean {
  if (index >= size) return false;
  let fn = BigInt(index);
  let sn = BigInt(size - 1);
  let r = leaf;
  for (const p of proof) {
    if (sn === 0n) return false;
    if ((fn & 1n) === 1n || fn === sn) {
      r = refNode(p, r);
      if ((fn & 1n) === 0n) {
        while ((fn & 1n) === 0n && fn !== 0n) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      r = refNode(r, p);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n && r.equals(root);
}

function refVerifyConsistency(first: number, second: number, h1: Buffer, h2: Buffer, proof: Buffer[]): boolean {
  if (first === second) return proof.length === 0 && h1.equals(h2);
  let p = proof;
  if ((BigInt(first) & BigInt(first - 1)) === 0n) p = [h1, ...proof];
  if (p.length === 0) return false;
  let fn = BigInt(first - 1);
  let sn = BigInt(second - 1);
  while ((fn & 1n) === 1n) {
    fn >>= 1n;
    sn >>= 1n;
  }
  let fr = p[0]!;
  let sr = p[0]!;
  for (const c of p.slice(1)) {
    if (sn === 0n) return false;
    if ((fn & 1n) === 1n || fn === sn) {
      fr = refNode(c, fr);
      sr = refNode(c, sr);
      while ((fn & 1n) === 0n && fn !== 0n) {
        fn >>= 1n;
        sn >>= 1n;
      }
    } else {
      sr = refNode(sr, c);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n && fr.equals(h1) && sr.equals(h2);
}

/** The module's tree, built in batches as the store builds it, with its nodes in a Map. */
function buildTree(leaves: Buffer[], batches: number[] = [leaves.length]) {
  const nodes = new Map<string, Buffer>();
  const read: ReadNodes = async (ids: readonly NodeId[]) => {
    const out = new Map<string, Buffer>();
    for (const id of ids) {
      const h = nodes.get(nodeKey(id));
      if (h === undefined) throw new Error(`missing ${nodeKey(id)}`);
      out.set(nodeKey(id), h);
    }
    return out;
  };
  let size = 0;
  for (const n of batches) {
    const frontier = new Map(frontierOf(size).map((id) => [nodeKey(id), nodes.get(nodeKey(id))!]));
    const batch = leaves.slice(size, size + n).map(leafHash);
    for (const node of appendNodes(size, frontier, batch)) nodes.set(nodeKey(node), node.hash);
    size += batch.length;
  }
  return { read, nodes };
}

const leafData = (n: number) => Array.from({ length: n }, (_, i) => sha(Buffer.from(`commit ${i}`)));

test("roots of trees of 0 to 40 leaves equal the RFC's MTH", async () => {
  const leaves = leafData(40);
  const { read } = buildTree(leaves, [1, 2, 3, 5, 8, 13, 8]);
  assert.deepEqual(await treeRoot(read, 0), EMPTY_ROOT);
  for (let n = 0; n <= 40; n++) assert.deepEqual(await treeRoot(read, n), mth(leaves.slice(0, n)), `size ${n}`);
});

test("every inclusion proof of trees up to 33 leaves equals the RFC's PATH and verifies", async () => {
  const leaves = leafData(33);
  const { read } = buildTree(leaves, [7, 1, 25]);
  for (let n = 1; n <= 33; n++) {
    const root = mth(leaves.slice(0, n));
    for (let m = 0; m < n; m++) {
      const proof = await proveInclusion(read, m, n);
      assert.deepEqual(proof, path(m, leaves.slice(0, n)), `PATH(${m}, ${n})`);
      assert.ok(refVerifyInclusion(refLeaf(leaves[m]!), m, n, proof, root), `reference verifies (${m}, ${n})`);
      assert.ok(verifyInclusion(leafHash(leaves[m]!), m, n, proof, root), `module verifies (${m}, ${n})`);
      assert.ok(!verifyInclusion(leafHash(leaves[(m + 1) % n]!), m, n, proof, root) || n === 1);
      if (proof.length > 0) {
        const bent = proof.map((p, i) => (i === proof.length - 1 ? refNode(p, p) : p));
        assert.ok(!verifyInclusion(leafHash(leaves[m]!), m, n, bent, root), `bent proof (${m}, ${n})`);
      }
    }
  }
});

test("every consistency proof of trees up to 33 leaves equals the RFC's PROOF and verifies", async () => {
  const leaves = leafData(33);
  const { read } = buildTree(leaves, [33]);
  for (let n = 1; n <= 33; n++) {
    const h2 = mth(leaves.slice(0, n));
    for (let m = 1; m <= n; m++) {
      const h1 = mth(leaves.slice(0, m));
      const proof = await proveConsistency(read, m, n);
      assert.deepEqual(proof, subproof(m, leaves.slice(0, n), true), `PROOF(${m}, ${n})`);
      assert.ok(refVerifyConsistency(m, n, h1, h2, proof), `reference verifies (${m}, ${n})`);
      assert.ok(verifyConsistency(m, n, h1, h2, proof), `module verifies (${m}, ${n})`);
      if (m < n) {
        const other = mth([...leaves.slice(0, m - 1), sha(Buffer.from("forged"))]);
        assert.ok(!verifyConsistency(m, n, other, h2, proof), `forked old tree (${m}, ${n})`);
        assert.ok(!verifyConsistency(m, n, h1, other, proof), `wrong new root (${m}, ${n})`);
      }
    }
  }
});

test("random trees up to 100,000 leaves: proofs verify by the reference algorithms", async () => {
  const leaves = leafData(100_000);
  const { read } = buildTree(leaves, [1, 99_998, 1]);
  const roots = new Map<number, Buffer>();
  const rootOf = async (n: number) => roots.get(n) ?? roots.set(n, await treeRoot(read, n)).get(n)!;
  await fc.assert(
    fc.asyncProperty(
      fc
        .integer({ min: 1, max: 100_000 })
        .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 1, max: n }))),
      async ([n, index, m]) => {
        const root = await rootOf(n);
        const inclusion = await proveInclusion(read, index, n);
        assert.ok(refVerifyInclusion(refLeaf(leaves[index]!), index, n, inclusion, root));
        const consistency = await proveConsistency(read, m, n);
        assert.ok(refVerifyConsistency(m, n, await rootOf(m), root, consistency));
      },
    ),
    { seed: 19, numRuns: 200 },
  );
  assert.deepEqual(await treeRoot(read, 100_000), mth(leaves));
});

test("bad positions are refused, not answered", async () => {
  const { read } = buildTree(leafData(4));
  await assert.rejects(proveInclusion(read, 4, 4), RangeError);
  await assert.rejects(proveConsistency(read, 0, 4), RangeError);
  await assert.rejects(proveConsistency(read, 3, 2), RangeError);
  assert.equal(verifyInclusion(leafHash(Buffer.alloc(32)), 0, 0, [], EMPTY_ROOT), false);
  assert.equal(verifyConsistency(2, 1, EMPTY_ROOT, EMPTY_ROOT, []), false);
});
