/**
 * A big append to the PostgreSQL store inserts its commits INSERT_ROWS a statement
 * (docs/storage.md, "PostgreSQL"), all in the append's one transaction: a statement that
 * fails after others ran leaves nothing of the append stored.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { PostgresStore } from "../src/store/postgres/PostgresStore.js";
import { INSERT_ROWS } from "../src/store/postgres/pgCommitRows.js";
import { collect, created } from "./store-contract.js";
import { testDatabase } from "./support/pg.js";
import { testChain } from "./support/testChain.js";

const db = await testDatabase();
/** Enough commits for three statements. */
const COMMITS = 2 * INSERT_ROWS + 500;

describe("PostgresStore: appends in several statements", () => {
  const stores: PostgresStore[] = [];
  const open = async () => {
    const store = await PostgresStore.open({ connectionString: db.url, schema: db.freshSchema(), poolSize: 2 });
    stores.push(store);
    return store;
  };
  after(async () => {
    for (const s of stores) await s.close();
    await db.drop();
  });

  it("stores a big append whole and in order", async () => {
    const store = await open();
    const chain = testChain("big", COMMITS);
    await store.appendCommits("big", null, chain, created());
    assert.deepEqual(
      (await collect(store.readCommits("big"))).map((c) => c.hash),
      chain.map((c) => c.hash),
    );
    assert.equal((await store.getContract("big"))?.length, COMMITS);
  });

  it("stores nothing when the last statement fails after the others ran", async () => {
    const store = await open();
    const chain = testChain("refused", 1 + COMMITS);
    await store.appendCommits("refused", null, chain.slice(0, 1), created());
    // A NUL cannot be stored in a text column: the chain is intact, the last statement fails.
    const bad = COMMITS - 10;
    chain[bad] = { ...chain[bad]!, hash: "nul\u0000hash" };
    chain[bad + 1] = { ...chain[bad + 1]!, parent: "nul\u0000hash" };
    await assert.rejects(store.appendCommits("refused", chain[0]!.hash, chain.slice(1)));
    assert.equal((await store.getContract("refused"))?.length, 1);
    assert.equal((await collect(store.readCommits("refused"))).length, 1);
  });
});
