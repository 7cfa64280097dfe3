/**
 * The SQLite store's part of the hub's Merkle tree: numbering an append's commits as the
 * next leaves and writing the subtrees they complete, inside the append's transaction
 * (docs/transparency.md). SQLite serialises writers, so the size row needs no lock.
 */

import type { StoredCommit } from "../../contract/StoredCommit.js";
import { appendNodes, type NodeId } from "../../tlog/merkle.js";
import { frontierAfter, frontierOf } from "../../tlog/proofs.js";
import { SENDS_LEAF_BACKFILL } from "../schema.js";
import {
  leafHashesOf,
  leafRow,
  nodeMap,
  splitLeaves,
  storedNodes,
  type TreeNodeRow,
  UNNUMBERED_IN_RECEIPT_ORDER,
} from "../treeNodes.js";
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

/**
 * The frontier an append combines with (frontierOf(size)), kept by the writer between appends
 * so an append of one commit does not read its O(log n) nodes again (about 20 of the 340–370
 * µs of writer CPU a one-commit transaction cost on the bench machine). It is only used while it
 * provably describes the stored tree: the tree still has `size` leaves, and no other
 * connection committed since (`PRAGMA data_version` changes exactly then). A rolled-back
 * append of this connection leaves the stored size below the cached one, so the cache misses
 * until an append through here sets it again; the tree can only reach the cached size again
 * through such an append.
 */
export class FrontierCache {
  #size = -1;
  #dataVersion = -1;
  #frontier: ReadonlyMap<string, Uint8Array> = new Map();

  /**
   * The cached frontier when it describes the stored tree of `size` leaves, read at the
   * connection's `dataVersion`, else undefined.
   */
  get(size: number, dataVersion: number): ReadonlyMap<string, Uint8Array> | undefined {
    return size === this.#size && dataVersion === this.#dataVersion ? this.#frontier : undefined;
  }

  set(size: number, dataVersion: number, frontier: ReadonlyMap<string, Uint8Array>): void {
    this.#size = size;
    this.#dataVersion = dataVersion;
    this.#frontier = frontier;
  }
}

/** Changes when another connection commits; this connection's own writes leave it as it was. */
const dataVersion = (sql: Sql): number => sql("PRAGMA data_version").pluck().get() as number;

/**
 * Makes `commits` the next leaves (setting their leafIndex) and stores the new nodes above
 * the leaves; `cache` (the writer's) saves reading the frontier.
 */
export function appendSqliteLeaves(
  sql: Sql,
  commits: readonly Pick<StoredCommit, "hash" | "leafIndex">[],
  cache?: FrontierCache,
): void {
  const size = sqliteTreeSize(sql);
  // Read once: the append's own writes below leave it unchanged, so it also labels the result.
  const version = cache === undefined ? -1 : dataVersion(sql);
  const frontier = cache?.get(size, version) ?? readSqliteTreeNodes(sql, frontierOf(size));
  const nodes = appendNodes(size, frontier, leafHashesOf(commits));
  const insert = sql("INSERT INTO tlog_nodes (level, idx, hash) VALUES (?, ?, ?)");
  for (const n of storedNodes(nodes)) insert.run(n.level, n.index, n.hash.toString("hex"));
  const grown = size + commits.length;
  sql("UPDATE tlog_size SET size = ? WHERE id = 1").run(grown);
  commits.forEach((c, i) => {
    c.leafIndex = size + i;
  });
  cache?.set(grown, version, frontierAfter(grown, frontier, nodes));
}

/**
 * Gives leaves to commits stored before the tree existed (an older data directory), in
 * receipt order (UNNUMBERED_IN_RECEIPT_ORDER); each contract's commits keep their order,
 * then the SENDs without a leaf. Runs at open.
 */
export function backfillSqliteLeaves(db: Database.Database, sql: Sql): void {
  const rows = sql(UNNUMBERED_IN_RECEIPT_ORDER).all() as { contract_id: string; idx: number; hash: string }[];
  const sendsUnleafed = sql("SELECT 1 FROM sends WHERE leaf_index IS NULL LIMIT 1").get() !== undefined;
  if (rows.length === 0 && !sendsUnleafed) return;
  db.transaction(() => {
    if (rows.length > 0) {
      const commits = rows.map((r) => ({ hash: r.hash }) as StoredCommit);
      appendSqliteLeaves(sql, commits);
      const set = sql("UPDATE commits SET leaf_index = ? WHERE contract_id = ? AND idx = ?");
      rows.forEach((r, i) => {
        set.run(commits[i]!.leafIndex, r.contract_id, r.idx);
      });
    }
    // Their SENDs' leaves, and any an instance older than schema version 11 stored since.
    sql(SENDS_LEAF_BACKFILL).run();
  }).immediate();
}
