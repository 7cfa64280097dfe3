/**
 * The hub's Merkle tree (docs/transparency.md), hashed as Certificate Transparency does
 * (RFC 9162): a leaf is `SHA-256(0x00 ‖ data)`, an interior node `SHA-256(0x01 ‖ left ‖ right)`,
 * the root of no leaves `SHA-256("")`.
 *
 * The tree is kept as its complete subtrees: node (level L, index i) is the root of leaves
 * [i·2^L, (i+1)·2^L). Once written a node never changes, so a store can keep them in a table
 * and answer every proof and root from O(log n) of them. Everything here is pure: the caller
 * reads the nodes named by `*Nodes` functions and passes their hashes back.
 *
 * Indices are plain numbers (exact up to 2^53), so arithmetic uses division, not bit shifts.
 */
import * as cryptoModule from "node:crypto";
import { createHash } from "node:crypto";

/** A complete subtree: the root of leaves [index·2^level, (index+1)·2^level). */
export interface NodeId {
  level: number;
  index: number;
}

/** A range of leaves [start, end) whose Merkle tree hash a proof carries. */
export interface LeafRange {
  start: number;
  end: number;
}

const LEAF_PREFIX = Buffer.from([0]);
const NODE_PREFIX = Buffer.from([1]);

/**
 * crypto.hash (Node 20.12 and later): a one-shot digest without a Hash object. An append
 * hashes each new leaf and about as many interior nodes, so the tree's share of the writer's
 * time per commit is mostly these two functions.
 */
const oneShot = (cryptoModule as { hash?: (algorithm: string, data: Uint8Array, encoding: "buffer") => Buffer }).hash;
/** Scratch input of an interior node's hash: 0x01, left 32 bytes, right 32 bytes. */
const nodeInput = Buffer.alloc(65, 1);

/** The hash of a leaf holding `data` (for the hub, the 32 raw bytes of a commit hash). */
export function leafHash(data: Uint8Array): Buffer {
  if (oneShot === undefined) return createHash("sha256").update(LEAF_PREFIX).update(data).digest();
  return oneShot("sha256", Buffer.concat([LEAF_PREFIX, data]), "buffer");
}

/** The hash of an interior node. */
export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  if (oneShot === undefined || left.byteLength !== 32 || right.byteLength !== 32)
    return createHash("sha256").update(NODE_PREFIX).update(left).update(right).digest();
  nodeInput.set(left, 1);
  nodeInput.set(right, 33);
  return oneShot("sha256", nodeInput, "buffer");
}

/** The root of the empty tree. */
export const EMPTY_ROOT: Buffer = createHash("sha256").digest();

/** A node's key in maps and tables: `<level>:<index>`. */
export const nodeKey = (n: NodeId): string => `${n.level}:${n.index}`;

/** The largest power of two strictly below n (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The complete subtrees covering [start, end), left to right, each as large as alignment
 * allows. For the ranges a tree of any size is split into, their sizes strictly decrease,
 * so folding their hashes from the right gives the range's tree hash (rangeHash).
 */
export function subtreesOf(range: LeafRange): NodeId[] {
  const out: NodeId[] = [];
  let at = range.start;
  while (at < range.end) {
    let size = 1;
    let level = 0;
    while (at % (size * 2) === 0 && at + size * 2 <= range.end) {
      size *= 2;
      level++;
    }
    out.push({ level, index: at / size });
    at += size;
  }
  return out;
}

/** The tree hash of a range from the hashes of its subtreesOf, in that order. */
export function rangeHash(subtreeHashes: readonly Uint8Array[]): Buffer {
  if (subtreeHashes.length === 0) return EMPTY_ROOT;
  let h: Buffer = Buffer.from(subtreeHashes[subtreeHashes.length - 1]!);
  for (let i = subtreeHashes.length - 2; i >= 0; i--) h = nodeHash(subtreeHashes[i]!, h);
  return h;
}

/**
 * The ranges whose tree hashes form the inclusion proof of leaf `index` in the tree of
 * `size` leaves (RFC 9162 §2.1.3.1), in proof order (the leaf's sibling first).
 */
export function inclusionRanges(index: number, size: number): LeafRange[] {
  if (!(Number.isSafeInteger(index) && Number.isSafeInteger(size) && index >= 0 && index < size)) {
    throw new RangeError(`no leaf ${index} in a tree of ${size}`);
  }
  const topDown: LeafRange[] = [];
  let start = 0;
  let end = size;
  while (end - start > 1) {
    const k = splitPoint(end - start);
    if (index < start + k) {
      topDown.push({ start: start + k, end });
      end = start + k;
    } else {
      topDown.push({ start, end: start + k });
      start += k;
    }
  }
  return topDown.reverse();
}

/**
 * The ranges whose tree hashes form the consistency proof from the tree of `from` leaves to
 * the tree of `to` leaves (RFC 9162 §2.1.4.1), in proof order; empty when from = to.
 */
export function consistencyRanges(from: number, to: number): LeafRange[] {
  if (!(Number.isSafeInteger(from) && Number.isSafeInteger(to) && from >= 1 && from <= to)) {
    throw new RangeError(`no consistency proof from ${from} to ${to}`);
  }
  const topDown: LeafRange[] = [];
  let start = 0;
  let end = to;
  let m = from;
  let whole = true;
  while (m !== end - start) {
    const k = splitPoint(end - start);
    if (m <= k) {
      topDown.push({ start: start + k, end });
      end = start + k;
    } else {
      topDown.push({ start, end: start + k });
      start += k;
      m -= k;
      whole = false;
    }
  }
  // The old tree's own hash is needed unless it is the whole left edge of the new tree.
  if (!whole) topDown.push({ start, end });
  return topDown.reverse();
}

/** Every node a list of ranges needs, without repeats, and a function turning their hashes into the ranges' hashes. */
export function nodesForRanges(ranges: readonly LeafRange[]): {
  nodes: NodeId[];
  hashes: (nodeHashes: ReadonlyMap<string, Uint8Array>) => Buffer[];
} {
  const perRange = ranges.map(subtreesOf);
  const unique = new Map<string, NodeId>();
  for (const ids of perRange) for (const id of ids) unique.set(nodeKey(id), id);
  return {
    nodes: [...unique.values()],
    hashes: (found) =>
      perRange.map((ids) =>
        rangeHash(
          ids.map((id) => {
            const h = found.get(nodeKey(id));
            if (h === undefined) throw new Error(`tree node ${nodeKey(id)} is missing`);
            return h;
          }),
        ),
      ),
  };
}

/** A node as stored: its position and hash. */
export interface TreeNode extends NodeId {
  hash: Buffer;
}

/**
 * The nodes that appending `leaves` (leaf hashes) to a tree of `size` leaves creates: each
 * leaf at level 0, and every subtree the append completes. `frontier` holds the hashes of
 * subtreesOf([0, size)) (the only old nodes an append combines with).
 */
export function appendNodes(size: number, frontier: ReadonlyMap<string, Uint8Array>, leaves: readonly Uint8Array[]) {
  const known = new Map<string, Uint8Array>(frontier);
  const created: TreeNode[] = [];
  for (let i = 0; i < leaves.length; i++) {
    let node: TreeNode = { level: 0, index: size + i, hash: Buffer.from(leaves[i]!) };
    created.push(node);
    known.set(nodeKey(node), node.hash);
    while (node.index % 2 === 1) {
      const left = known.get(nodeKey({ level: node.level, index: node.index - 1 }));
      if (left === undefined) throw new Error(`tree node ${node.level}:${node.index - 1} is missing`);
      node = { level: node.level + 1, index: (node.index - 1) / 2, hash: nodeHash(left, node.hash) };
      created.push(node);
      known.set(nodeKey(node), node.hash);
    }
  }
  return created;
}

/**
 * Checks an inclusion proof (RFC 9162 §2.1.3.2): that the leaf hash `leaf` at `index` is in
 * the tree of `size` leaves whose root is `root`.
 */
export function verifyInclusion(
  leaf: Uint8Array,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!(Number.isSafeInteger(index) && Number.isSafeInteger(size) && index >= 0 && index < size)) return false;
  let fn = index;
  let sn = size - 1;
  let r: Buffer = Buffer.from(leaf);
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2;
        sn = Math.floor(sn / 2);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

/**
 * Checks a consistency proof (RFC 9162 §2.1.4.2): that the tree of `to` leaves with root
 * `toRoot` extends the tree of `from` leaves with root `fromRoot`.
 */
export function verifyConsistency(
  from: number,
  to: number,
  fromRoot: Uint8Array,
  toRoot: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  if (!(Number.isSafeInteger(from) && Number.isSafeInteger(to) && from >= 1 && from <= to)) return false;
  if (from === to) return proof.length === 0 && Buffer.from(fromRoot).equals(toRoot);
  const path = isPowerOfTwo(from) ? [fromRoot, ...proof] : [...proof];
  if (path.length === 0) return false;
  let fn = from - 1;
  let sn = to - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr: Buffer = Buffer.from(path[0]!);
  let sr: Buffer = Buffer.from(path[0]!);
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2;
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && fr.equals(fromRoot) && sr.equals(toRoot);
}

function isPowerOfTwo(n: number): boolean {
  let k = 1;
  while (k < n) k *= 2;
  return k === n;
}
