import assert from "node:assert/strict";
import { after, test } from "node:test";
import { PostgresStore } from "../src/store/postgres/PostgresStore.js";
import { treeRoot } from "../src/tlog/proofs.js";
import { referenceRoot } from "./store-contract-tree.js";
import { testDatabase } from "./support/pg.js";
import { testChain } from "./support/testChain.js";

const db = await testDatabase();
after(() => db.drop());

test("two PostgreSQL instances appending at once number every commit once, with no gap", async () => {
  const schema = db.freshSchema();
  const [one, two] = await Promise.all([
    PostgresStore.open({ connectionString: db.url, schema, poolSize: 4 }),
    PostgresStore.open({ connectionString: db.url, schema, poolSize: 4 }),
  ]);
  try {
    const owner = "ab".repeat(32);
    const chains = Array.from({ length: 16 }, (_, i) => testChain(`pg${i}`, 6));
    await Promise.all(
      chains.map(async (chain, i) => {
        const store = i % 2 === 0 ? one! : two!;
        await store.appendCommits(`pg${i}`, null, chain.slice(0, 1), {
          contract: { owner, createdAt: 1, private: false },
        });
        for (let k = 1; k < chain.length; k += 2)
          await store.appendCommits(`pg${i}`, chain[k - 1]!.hash, chain.slice(k, k + 2));
      }),
    );
    const all = chains.flat();
    const byLeaf: string[] = [];
    for (const c of all) {
      const leaf = await one!.findLeaf(c.hash);
      assert.equal(byLeaf[leaf!.leafIndex], undefined, `leaf ${leaf!.leafIndex} given twice`);
      byLeaf[leaf!.leafIndex] = c.hash;
    }
    assert.equal(byLeaf.filter((h) => h !== undefined).length, all.length);
    assert.equal(await two!.treeSize(), all.length);
    // Either instance's nodes give the root computed from the commits themselves.
    const root = referenceRoot(byLeaf);
    assert.deepEqual(await treeRoot((ids) => one!.readTreeNodes(ids), all.length), root);
    assert.deepEqual(await treeRoot((ids) => two!.readTreeNodes(ids), all.length), root);
    assert.deepEqual(await one!.logKeySeed(), await two!.logKeySeed());
  } finally {
    await Promise.all([one!.close(), two!.close()]);
  }
});
