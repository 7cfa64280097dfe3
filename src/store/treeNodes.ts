/** Helpers both stores share to keep the Merkle tree's nodes (../tlog/merkle.ts) in `tlog_nodes`. */
import { ContractError } from "../contract/ContractError.js";
import type { StoredCommit } from "../contract/StoredCommit.js";
import { leafHash, type NodeId, nodeKey } from "../tlog/merkle.js";

/** A `tlog_nodes` row. */
export interface TreeNodeRow {
  level: number;
  idx: number;
  hash: string;
}

/** The leaf hashes of commits: the hash of the 32 raw bytes of each commit hash. */
export const leafHashesOf = (commits: readonly Pick<StoredCommit, "hash">[]): Buffer[] =>
  commits.map((c) => leafHash(Buffer.from(c.hash, "hex")));

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
