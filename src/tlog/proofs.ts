/**
 * Roots and proofs read from stored subtrees (merkle.ts): each needs O(log n) nodes, fetched
 * in one call to `read`, so a store answers with one query whatever the tree's size.
 */
import {
  consistencyRanges,
  EMPTY_ROOT,
  inclusionRanges,
  type NodeId,
  nodeKey,
  nodesForRanges,
  subtreesOf,
  type TreeNode,
} from "./merkle.js";

/** Reads stored nodes by id; the map is keyed by nodeKey. A missing node is an error of the store. */
export type ReadNodes = (ids: readonly NodeId[]) => Promise<ReadonlyMap<string, Uint8Array>>;

/** The root of the first `size` leaves. */
export async function treeRoot(read: ReadNodes, size: number): Promise<Buffer> {
  if (size === 0) return EMPTY_ROOT;
  const { nodes, hashes } = nodesForRanges([{ start: 0, end: size }]);
  return hashes(await read(nodes))[0]!;
}

/** The inclusion proof of leaf `index` in the tree of `size` leaves. */
export async function proveInclusion(read: ReadNodes, index: number, size: number): Promise<Buffer[]> {
  const { nodes, hashes } = nodesForRanges(inclusionRanges(index, size));
  return nodes.length === 0 ? [] : hashes(await read(nodes));
}

/** The consistency proof from the tree of `from` leaves to the tree of `to` leaves. */
export async function proveConsistency(read: ReadNodes, from: number, to: number): Promise<Buffer[]> {
  const { nodes, hashes } = nodesForRanges(consistencyRanges(from, to));
  return nodes.length === 0 ? [] : hashes(await read(nodes));
}

/** The nodes an append to a tree of `size` leaves combines with (appendNodes' frontier). */
export const frontierOf = (size: number): NodeId[] => subtreesOf({ start: 0, end: size });

/**
 * The frontier of the tree of `size` leaves after an append: `frontier` (the one the append
 * combined with) and the append's `created` nodes (appendNodes) hold every node of it.
 */
export function frontierAfter(
  size: number,
  frontier: ReadonlyMap<string, Uint8Array>,
  created: readonly TreeNode[],
): Map<string, Uint8Array> {
  const known = new Map(frontier);
  for (const n of created) known.set(nodeKey(n), n.hash);
  return new Map(frontierOf(size).map((id) => [nodeKey(id), known.get(nodeKey(id))!]));
}
