/**
 * Helpers both stores share to keep the Merkle tree's nodes (../tlog/merkle.ts): the subtrees
 * above the leaves in `tlog_nodes`, the leaves themselves derived from `commits` (schema
 * version 9). A leaf's hash is a function of the commit hash stored in the commit's row, so a
 * row of its own would repeat it: the append writes half the node rows, and a read of level 0
 * looks the commit up by `leaf_index` (a unique index) and hashes it.
 */
import { ContractError } from "../contract/ContractError.js";
import type { StoredCommit } from "../contract/StoredCommit.js";
import { leafHash, type NodeId, nodeKey } from "../tlog/merkle.js";

/**
 * The commits stored before the tree existed, in the order the hub received them, which is
 * the order they get their leaves. A commit's stored time approximates its receipt, but a
 * hub older than the floor at the parent's time (docs/protocol.md, "Commit timestamps")
 * stamped a commit earlier than its parent when its clock stepped back; the commit was still
 * received after its parent. So a commit counts at the latest time of its contract's log up
 * to it, and each contract's commits keep their log order. SQLite and PostgreSQL alike.
 */
export const UNNUMBERED_IN_RECEIPT_ORDER = `SELECT contract_id, idx, hash FROM (
    SELECT contract_id, idx, hash, MAX(timestamp) OVER (PARTITION BY contract_id ORDER BY idx) AS received
      FROM commits WHERE leaf_index IS NULL
  ) AS unnumbered ORDER BY received, contract_id, idx`;

/** A `tlog_nodes` row. */
export interface TreeNodeRow {
  level: number;
  idx: number;
  hash: string;
}

/** The leaf hashes of commits: the hash of the 32 raw bytes of each commit hash. */
export const leafHashesOf = (commits: readonly Pick<StoredCommit, "hash">[]): Buffer[] =>
  commits.map((c) => leafHash(Buffer.from(c.hash, "hex")));

/** Only the nodes `tlog_nodes` keeps: those above the leaves. */
export const storedNodes = <T extends NodeId>(nodes: readonly T[]): T[] => nodes.filter((n) => n.level > 0);

/** The ids split into leaves (level 0, read from `commits`) and the rest (read from `tlog_nodes`). */
export function splitLeaves(ids: readonly NodeId[]): { leaves: number[]; inner: NodeId[] } {
  const leaves: number[] = [];
  const inner: NodeId[] = [];
  for (const id of ids) {
    if (id.level === 0) leaves.push(id.index);
    else inner.push(id);
  }
  return { leaves, inner };
}

/** The level-0 node row of the commit numbered `leafIndex` whose hash is `commitHash`. */
export const leafRow = (leafIndex: number, commitHash: string): TreeNodeRow => ({
  level: 0,
  idx: leafIndex,
  hash: leafHash(Buffer.from(commitHash, "hex")).toString("hex"),
});

/** The rows as a map by nodeKey, checking that every id asked for came back. */
export function nodeMap(ids: readonly NodeId[], rows: readonly TreeNodeRow[]): Map<string, Buffer> {
  const found = new Map<string, Buffer>();
  for (const r of rows) found.set(`${r.level}:${r.idx}`, Buffer.from(r.hash, "hex"));
  for (const id of ids) {
    if (!found.has(nodeKey(id))) {
      throw new ContractError("CORRUPTED", `The log's tree node ${nodeKey(id)} is missing from storage`, {
        reason: "tree_node_missing",
        node: nodeKey(id),
      });
    }
  }
  return found;
}
