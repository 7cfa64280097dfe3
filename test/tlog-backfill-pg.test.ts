/**
 * PostgreSQL: commits stored before the Merkle tree existed get their leaves in receipt order
 * when the store opens (docs/transparency.md, "The tree"), each contract's commits in log
 * order even where a hub older than the floor at the parent's time stamped a commit earlier
 * than its parent (its clock stepped back).
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import pg from "pg";
import { PostgresStore } from "../src/store/postgres/PostgresStore.js";
import { clientConfig } from "../src/store/postgres/pgPool.js";
import { frontierOf, treeRoot } from "../src/tlog/proofs.js";
import { testDatabase } from "./support/pg.js";
import { testChain } from "./support/testChain.js";

const db = await testDatabase();
const admin = new pg.Pool(clientConfig({ connectionString: db.url }, "tlog-backfill-pg-test"));
admin.on("error", () => {});
after(() => admin.end());

const OWNER = "ab".repeat(32);
const contract = { contract: { owner: OWNER, createdAt: 1_700_000_000, private: false, readers: [] } };

test("leaves given at open keep each contract's log order when its stored times step back", async () => {
  const schema = db.freshSchema();
  const open = () => PostgresStore.open({ connectionString: db.url, poolSize: 2, schema });
  const store = await open();
  const a = testChain("a", 3);
  const b = testChain("b", 2);
  await store.appendCommits("a", null, a, contract);
  await store.appendCommits("b", null, b, contract);
  await store.close();
  // Back to a store written before the tree: no leaves, no nodes; a's third commit stamped
  // before its second. a: 100, 102, 90; b: 95, 101.
  const q = (text: string, params: unknown[] = []) => admin.query(text.replaceAll("S.", `"${schema}".`), params);
  await q("UPDATE S.commits SET leaf_index = NULL");
  await q("DELETE FROM S.tlog_nodes");
  await q("UPDATE S.tlog_size SET size = 0");
  for (const [id, idx, t] of [
    ["a", 0, 100],
    ["a", 1, 102],
    ["a", 2, 90],
    ["b", 0, 95],
    ["b", 1, 101],
  ] as const) {
    await q("UPDATE S.commits SET timestamp = $1 WHERE contract_id = $2 AND idx = $3", [1_700_000_000 + t, id, idx]);
  }
  const reopened = await open();
  try {
    const leaves = await Promise.all([...a, ...b].map(async (c) => (await reopened.findLeaf(c.hash))!.leafIndex));
    // a's third commit was received no earlier than its second (102): after b's second (101).
    assert.deepEqual(leaves, [1, 3, 4, 0, 2]);
    assert.equal(await reopened.treeSize(), 5);
    const read = (ids: Parameters<PostgresStore["readTreeNodes"]>[0]) => reopened.readTreeNodes(ids);
    assert.equal((await read(frontierOf(5))).size, frontierOf(5).length);
    assert.equal((await treeRoot(read, 5)).length, 32);
  } finally {
    await reopened.close();
  }
});
