/**
 * `verify --data-dir`'s tree check (docs/transparency.md, "The command line"): every commit
 * has one leaf, the leaves are 0…n−1 without gap. A leaf number that is no array index
 * (negative, fractional, 2^32 − 1 and beyond) was stored in the check's array as a mere
 * property: that commit was not counted, and with the stored size matching the others the
 * tree was reported intact.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import { verifyTree } from "../src/cli/verify/verifyTree.js";
import Database from "../src/store/sqlite/Database.js";
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { cleanup, tempDir } from "./hub-fixtures.js";
import { testChain } from "./support/testChain.js";

after(cleanup);

const contract = { contract: { owner: "ab".repeat(32), createdAt: 1_700_000_000, private: false, readers: [] } };

/** A store of one contract of three commits whose third commit's leaf is `leaf`, its stored tree size `size`. */
async function damagedStore(leaf: number, size: number): Promise<SqliteStore> {
  const dir = tempDir();
  const store = await SqliteStore.open({ dataDir: dir });
  await store.appendCommits("a", null, testChain("a", 3), contract);
  await store.close();
  const db = new Database(join(dir, "hub.sqlite"));
  db.prepare("UPDATE commits SET leaf_index = ? WHERE contract_id = 'a' AND idx = 2").run(leaf);
  db.prepare("UPDATE tlog_size SET size = ? WHERE id = 1").run(size);
  db.close();
  return SqliteStore.open({ dataDir: dir });
}

test("a commit whose leaf is no leaf number is damage of the tree, naming the commit", async () => {
  for (const leaf of [-1, 2.5, 2 ** 32 - 1, 2 ** 32]) {
    for (const size of [2, 3]) {
      const store = await damagedStore(leaf, size);
      try {
        const report = await verifyTree(store, ["a"]);
        assert.equal(report.ok, false, `leaf ${leaf}, size ${size}`);
        assert.equal(report.damage?.leaf_index, null);
        assert.match(report.damage?.message ?? "", /commit 2 of a \([0-9a-f]{64}\) has leaf /, `leaf ${leaf}`);
      } finally {
        await store.close();
      }
    }
  }
});

test("a leaf past the commits is a gap in the leaves", async () => {
  const store = await damagedStore(5, 3);
  try {
    const report = await verifyTree(store, ["a"]);
    assert.equal(report.ok, false);
    assert.equal(report.damage?.leaf_index, 2);
    assert.match(report.damage?.message ?? "", /leaf 2 belongs to no stored commit/);
  } finally {
    await store.close();
  }
});
