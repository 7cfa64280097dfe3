/**
 * The SQLite store's part of the hub's Merkle tree: numbering an append's commits as the
 * next leaves and writing the subtrees they complete, inside the append's transaction
 * (docs/transparency.md). SQLite serialises writers, so the size row needs no lock.
 */

import type { StoredCommit } from "../../contract/StoredCommit.js";
import { appendNodes, type NodeId } from "../../tlog/merkle.js";
import { frontierOf } from "../../tlog/proofs.js";
import { leafHashesOf, leafRow, nodeMap, splitLeaves, storedNodes, type TreeNodeRow } from "../treeNodes.js";
import type Database from "./Database.js";

type Sql = (text: string) => Database.Statement;

/** Leaves in the tree. */
export const sqliteTreeSize = (sql: Sql): number =>
  (sql("SELECT size FROM tlog_size WHERE id = 1").get() as { size: number }).size;

/**
 * Nodes by id (one point lookup each: O(log n) of them per root or proof), leaves from the
 * commit holding them (../treeNodes.ts).
 */
export function readSqliteTreeNodes(sql: Sql, ids: readonly NodeId[]): Map<string, Buffer> {
  const { leaves, inner } = splitLeaves(ids);
  const rows: TreeNodeRow[] = [];
  const node = sql("SELECT level, idx, hash FROM tlog_nodes WHERE level = ? AND idx = ?");
  for (const id of inner) {
    const row = node.get(id.level, id.index) as TreeNodeRow | undefined;
    if (row !== undefined) rows.push(row);
  }
  const leaf = sql("SELECT hash FROM commits WHERE leaf_index = ?").pluck();
  for (const index of leaves) {
    const hash = leaf.get(index) as string | undefined;
    if (hash !== undefined) rows.push(leafRow(index, hash));
  }
  return nodeMap(ids, rows);
}

/** Makes `commits` the next leaves (setting their leafIndex) and stores the new nodes above the leaves. */
export function appendSqliteLeaves(sql: Sql, commits: readonly Pick<StoredCommit, "hash" | "leafIndex">[]): void {
  const size = sqliteTreeSize(sql);
  const nodes = appendNodes(size, readSqliteTreeNodes(sql, frontierOf(size)), leafHashesOf(commits));
  const insert = sql("INSERT INTO tlog_nodes (level, idx, hash) VALUES (?, ?, ?)");
  for (const n of storedNodes(nodes)) insert.run(n.level, n.index, n.hash.toString("hex"));
  sql("UPDATE tlog_size SET size = ? WHERE id = 1").run(size + commits.length);
  commits.forEach((c, i) => {
    c.leafIndex = size + i;
  });
}

/**
 * Gives leaves to commits stored before the tree existed (an older data directory), in
 * receipt order; each contract's commits keep their order. Runs once, at open.
 */
export function backfillSqliteLeaves(db: Database.Database, sql: Sql): void {
  const rows = sql(
    "SELECT contract_id, idx, hash FROM commits WHERE leaf_index IS NULL ORDER BY timestamp, contract_id, idx",
  ).all() as { contract_id: string; idx: number; hash: string }[];
  if (rows.length === 0) return;
  db.transaction(() => {
    const commits = rows.map((r) => ({ hash: r.hash }) as StoredCommit);
    appendSqliteLeaves(sql, commits);
    const set = sql("UPDATE commits SET leaf_index = ? WHERE contract_id = ? AND idx = ?");
    rows.forEach((r, i) => {
      set.run(commits[i]!.leafIndex, r.contract_id, r.idx);
    });
  }).immediate();
}
