/**
 * A stored leaf number that is no leaf number (negative, fractional: a damaged row) makes the
 * hub's inclusion proof CORRUPTED, naming the commit and its contract (docs/transparency.md),
 * not an internal error from computing a proof for a leaf that cannot exist.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { ANONYMOUS } from "../src/hub/HubApi.js";
import Database from "../src/store/sqlite/Database.js";
import { Actor, cleanup, tempDir } from "./hub-fixtures.js";
import { openSqliteHub } from "./support/openSqliteHub.js";

after(cleanup);

test("an inclusion proof for a commit whose stored leaf is no leaf number is CORRUPTED, naming it", async () => {
  const alice = new Actor("alice");
  for (const leaf of [-1, 1.5]) {
    const dir = tempDir();
    const writer = await openSqliteHub({ dataDir: dir });
    const id = "c_damaged_leaf";
    await writer.createContract(alice.caller, { contract_id: id, model: null, rules: [] });
    const hashes: string[] = [];
    for (const value of ["one", "two"]) {
      const { result } = await writer.submitCommit(alice.caller, id, {
        contract_id: id,
        method: "post",
        path: "/x.text",
        value,
      });
      hashes.push(result.commit_hash);
    }
    await writer.close();
    const db = new Database(join(dir, "hub.sqlite"));
    db.prepare("UPDATE commits SET leaf_index = ? WHERE hash = ?").run(leaf, hashes[0]);
    db.close();
    const hub = await openSqliteHub({ dataDir: dir });
    try {
      const hash = hashes[0]!;
      const details = await assertContractErrorAsync(
        () => hub.getInclusionProof(ANONYMOUS, { hash }),
        "CORRUPTED",
        "corrupted",
      );
      assert.deepEqual([details.contract_id, details.hash, details.leaf_index], [id, hash, leaf]);
      // The undamaged commits are still proven.
      const proof = await hub.getInclusionProof(ANONYMOUS, { hash: hashes[1]! });
      assert.equal(proof.leaf_index, 2);
    } finally {
      await hub.close();
    }
  }
});
