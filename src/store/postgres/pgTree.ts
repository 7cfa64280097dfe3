/**
 * The PostgreSQL store's part of the hub's Merkle tree (docs/transparency.md). Leaf numbers
 * must have no gap and no repeat across every instance, so an append locks the one
 * `tlog_size` row (`FOR UPDATE`) until it commits: appends of different contracts, which
 * otherwise run in parallel, take turns from there to COMMIT. A sequence would not do: a
 * rolled-back append would leave a hole in the tree.
 */
import type pg from "pg";
import type { StoredCommit } from "../../contract/StoredCommit.js";
import { appendNodes, type NodeId } from "../../tlog/merkle.js";
import { frontierOf } from "../../tlog/proofs.js";
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

type Queryable = Pick<pg.PoolClient, "query">;

/** Nodes by id, in one round trip: leaves from the commit holding them (../treeNodes.ts). */
export async function readPgTreeNodes(db: Queryable, ids: readonly NodeId[]): Promise<Map<string, Buffer>> {
  if (ids.length === 0) return new Map();
  const { leaves, inner } = splitLeaves(ids);
  const { rows } = await db.query<TreeNodeRow>(
    `SELECT n.level, n.idx, n.hash FROM tlog_nodes n
       JOIN unnest($1::smallint[], $2::bigint[]) AS want(level, idx) ON n.level = want.level AND n.idx = want.idx
     UNION ALL
     SELECT 0, c.leaf_index, c.hash FROM commits c WHERE c.leaf_index = ANY ($3::bigint[])`,
    [inner.map((id) => id.level), inner.map((id) => id.index), leaves],
  );
  return nodeMap(
    ids,
    rows.map((r) => (r.level === 0 ? leafRow(r.idx, r.hash) : r)),
  );
}

/**
 * Makes `commits` the next leaves (setting their leafIndex) and stores the new nodes above the
 * leaves; takes the size row's lock.
 */
export async function appendPgLeaves(client: Queryable, commits: readonly StoredCommit[]): Promise<void> {
  const { rows } = await client.query<{ size: number }>("SELECT size FROM tlog_size WHERE id = 1 FOR UPDATE");
  const size = rows[0]!.size;
  const created = appendNodes(size, await readPgTreeNodes(client, frontierOf(size)), leafHashesOf(commits));
  const nodes = storedNodes(created);
  await client.query(
    `INSERT INTO tlog_nodes (level, idx, hash) SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::text[])`,
    [nodes.map((n) => n.level), nodes.map((n) => n.index), nodes.map((n) => n.hash.toString("hex"))],
  );
  await client.query("UPDATE tlog_size SET size = $1 WHERE id = 1", [size + commits.length]);
  commits.forEach((c, i) => {
    c.leafIndex = size + i;
  });
}

/**
 * Gives leaves to commits stored before the tree existed, in receipt order, then to the
 * SENDs without one, in one transaction that holds the size row's lock (so concurrent starts backfill once).
 */
export async function backfillPgLeaves(client: pg.PoolClient): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT size FROM tlog_size WHERE id = 1 FOR UPDATE");
    const { rows } = await client.query<{ contract_id: string; idx: number; hash: string }>(
      UNNUMBERED_IN_RECEIPT_ORDER,
    );
    if (rows.length > 0) {
      const commits = rows.map((r) => ({ hash: r.hash }) as StoredCommit);
      await appendPgLeaves(client, commits);
      await client.query(
        `UPDATE commits c SET leaf_index = t.leaf FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS t(id, idx, leaf)
          WHERE c.contract_id = t.id AND c.idx = t.idx`,
        [rows.map((r) => r.contract_id), rows.map((r) => r.idx), commits.map((c) => c.leafIndex)],
      );
    }
    // Their SENDs' leaves, and any an instance older than schema version 11 stored since.
    await client.query(SENDS_LEAF_BACKFILL);
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  }
}
