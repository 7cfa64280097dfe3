/**
 * checkAssetInvariants (PROTOCOL.md §12 verify): clean on a hub's store, including private
 * contracts reached only through SENDs and RECVs; and each kind of damage to the asset
 * tables (a balance, a receipt, an asset row, a SEND row, a SEND's leaf or received marker)
 * is reported for its contract.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { verifyStore } from "../src/cli/verify/verifyStore.js";
import { assetStoreCheck } from "../src/hub/assets/assetStoreCheck.js";
import { checkAssetInvariants } from "../src/hub/assets/checkAssetInvariants.js";
import Database from "../src/store/sqlite/Database.js";
import { contracts, create, recv, send } from "./asset-fixtures.js";
import { Actor, cleanup, openHub, tempDir } from "./hub-fixtures.js";

after(cleanup);

/** A store with a public issuer "pub", a private holder "priv" and a private issuer "vault". */
async function world(dir: string) {
  const hub = await openHub(dir);
  const alice = new Actor("alice");
  await contracts(hub, alice, "pub");
  for (const id of ["priv", "vault"])
    await hub.createContract(alice.caller, { contract_id: id, model: null, rules: [], readers: [alice.identity] });
  await create(hub, alice, "pub", "p", 100);
  await create(hub, alice, "vault", "v", 50);
  await recv(hub, alice, "priv", await send(hub, alice, "pub", "p", "priv", 40));
  await recv(hub, alice, "pub", await send(hub, alice, "vault", "v", "pub", 5));
  const pending = await send(hub, alice, "priv", "p", "pub", 10);
  await hub.close();
  return { pending };
}

/** Runs `sql` on the hub's SQLite file (the damage), then the check over every contract. */
async function damaged(sql: string, params: unknown[] = []) {
  const dir = tempDir();
  const w = await world(dir);
  const db = new Database(join(dir, "hub.sqlite"));
  db.prepare(sql).run(...params.map((p) => (typeof p === "function" ? p(w) : p)));
  db.close();
  const hub = await openHub(dir);
  try {
    return await checkAssetInvariants(hub.store, ["pub", "priv", "vault"]);
  } finally {
    await hub.close();
  }
}

describe("checkAssetInvariants", () => {
  it("is clean on an intact store and reaches private contracts from the public ones", async () => {
    const dir = tempDir();
    await world(dir);
    const hub = await openHub(dir);
    const report = await checkAssetInvariants(hub.store);
    assert.deepEqual(report.issues, []);
    assert.deepEqual([...report.contracts].sort(), ["priv", "pub", "vault"]);
    assert.equal(report.assets, 2);
    assert.equal(report.sends, 3);
    await hub.close();
  });

  const cases: Array<[string, string, unknown[], string]> = [
    ["a balance", "UPDATE balances SET amount = amount + 1 WHERE contract_id = 'priv'", [], "priv"],
    ["a receipt", "DELETE FROM receipts WHERE contract_id = 'pub'", [], "vault"],
    ["an asset row", "UPDATE assets SET quantity = 99 WHERE issuer = 'pub'", [], "pub"],
    [
      "a SEND row",
      "UPDATE sends SET amount = 9 WHERE commit_hash = ?",
      [(w: { pending: string }) => w.pending],
      "priv",
    ],
    // How a SEND is filed for its recipient's incoming list (schema versions 11 and 13).
    [
      "a SEND's leaf",
      "UPDATE sends SET leaf_index = leaf_index + 1000 WHERE commit_hash = ?",
      [(w: { pending: string }) => w.pending],
      "priv",
    ],
    [
      "a SEND's received marker, set without a receipt",
      "UPDATE sends SET received = 1 WHERE commit_hash = ?",
      [(w: { pending: string }) => w.pending],
      "priv",
    ],
    [
      "a SEND's received marker, cleared beside its receipt",
      "UPDATE sends SET received = 0 WHERE from_contract = 'pub'",
      [],
      "pub",
    ],
  ];
  for (const [what, sql, params, contract] of cases) {
    it(`reports damage to ${what}`, async () => {
      const report = await damaged(sql, params);
      assert.equal(report.ok, false);
      assert.ok(
        report.issues.some((i) => i.contract_id === contract),
        JSON.stringify(report.issues),
      );
    });
  }
});

describe("verify's asset check", () => {
  it("reports a SEND filed under another leaf than its commit's, or marked against its receipt, as damage of its sender", async () => {
    for (const sql of [
      "UPDATE sends SET leaf_index = (SELECT MIN(leaf_index) FROM sends) WHERE commit_hash = ?",
      "UPDATE sends SET received = 1 WHERE commit_hash = ?",
    ]) {
      const dir = tempDir();
      const { pending } = await world(dir);
      const db = new Database(join(dir, "hub.sqlite"));
      db.prepare(sql).run(pending);
      db.close();
      const hub = await openHub(dir);
      const ids = ["pub", "priv", "vault"];
      const reports = await verifyStore(hub.store, ids, { checks: [assetStoreCheck(ids)] });
      await hub.close();
      assert.deepEqual(
        reports.map((r) => [r.contract_id, r.ok, r.damage?.hash]),
        [
          ["pub", true, undefined],
          ["priv", false, pending],
          ["vault", true, undefined],
        ],
        sql,
      );
    }
  });

  it("marks the contract whose asset tables are damaged, and only it", async () => {
    const dir = tempDir();
    await world(dir);
    const db = new Database(join(dir, "hub.sqlite"));
    db.prepare("UPDATE balances SET amount = amount - 1 WHERE contract_id = 'pub'").run();
    db.close();
    const hub = await openHub(dir);
    const ids = ["pub", "priv", "vault"];
    const reports = await verifyStore(hub.store, ids, { checks: [assetStoreCheck(ids)] });
    assert.deepEqual(
      reports.map((r) => [r.contract_id, r.ok]),
      [
        ["pub", false],
        ["priv", true],
        ["vault", true],
      ],
    );
    await hub.close();
  });
});
