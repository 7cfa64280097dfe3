/**
 * `verify --data-dir`'s check of the hub's Merkle tree (docs/transparency.md): the leaves are
 * recomputed from the stored commits (every commit has exactly one leaf, leaves 0..n-1 with
 * no gap), the tree is rebuilt from them, and every stored node (those above the leaves: a
 * leaf is read from its commit, so it has nothing of its own to compare) and the stored size
 * must equal the rebuilt ones. Nodes are compared a batch at a time, so memory stays small.
 */
import type { Store } from "../../store/Store.js";
import { storedNodes } from "../../store/treeNodes.js";
import { appendNodes, leafHash, nodeKey } from "../../tlog/merkle.js";
import { frontierAfter } from "../../tlog/proofs.js";
import { throwStorageFault } from "./throwStorageFault.js";

export interface TreeReport {
  ok: boolean;
  /** Leaves found (stored commits). */
  size: number;
  damage?: { leaf_index: number | null; message: string };
}

const BATCH = 4096;
/** Leaf numbers the check can hold: JavaScript array indices (below 2^32 − 1). */
const MAX_LEAVES = 2 ** 32 - 1;

/** Checks the tree of `store` over the commits of contracts `ids` (every contract in it). */
export async function verifyTree(store: Store, ids: readonly string[]): Promise<TreeReport> {
  const leaves: string[] = [];
  for (const id of ids) {
    try {
      for await (const c of store.readCommits(id)) {
        if (c.leafIndex === undefined) {
          return damaged(leaves.length, null, `commit ${c.index} of ${id} (${c.hash}) has no leaf in the tree`);
        }
        // Only an array index is counted by `leaves.length`: any other number would be a
        // property of the array, and its commit would go uncounted.
        if (!(Number.isSafeInteger(c.leafIndex) && c.leafIndex >= 0 && c.leafIndex < MAX_LEAVES)) {
          return damaged(
            leaves.length,
            null,
            `commit ${c.index} of ${id} (${c.hash}) has leaf ${c.leafIndex}, which is no leaf number`,
          );
        }
        if (leaves[c.leafIndex] !== undefined) {
          return damaged(leaves.length, c.leafIndex, `leaf ${c.leafIndex} is given to two commits`);
        }
        leaves[c.leafIndex] = c.hash;
      }
    } catch (err) {
      throwStorageFault(err);
      return damaged(leaves.length, null, `cannot read the commits of ${id}: ${(err as Error).message}`);
    }
  }
  const size = leaves.length;
  for (let i = 0; i < size; i++) {
    if (leaves[i] === undefined) return damaged(size, i, `leaf ${i} belongs to no stored commit`);
  }
  const stored = await store.treeSize();
  if (stored !== size) return damaged(size, null, `the stored tree size is ${stored}, but ${size} commits are stored`);
  let frontier = new Map<string, Uint8Array>();
  for (let start = 0; start < size; start += BATCH) {
    const batch = leaves.slice(start, start + BATCH).map((h) => leafHash(Buffer.from(h, "hex")));
    const nodes = appendNodes(start, frontier, batch);
    const stored = storedNodes(nodes);
    let found: Map<string, Buffer>;
    try {
      found = await store.readTreeNodes(stored);
    } catch (err) {
      throwStorageFault(err);
      return damaged(size, null, (err as Error).message);
    }
    for (const n of stored) {
      if (!found.get(nodeKey(n))!.equals(n.hash)) {
        return damaged(size, null, `tree node ${nodeKey(n)} differs from the commits' tree`);
      }
    }
    frontier = frontierAfter(start + batch.length, frontier, nodes);
  }
  return { ok: true, size };
}

function damaged(size: number, leaf: number | null, message: string): TreeReport {
  return { ok: false, size, damage: { leaf_index: leaf, message } };
}
