/**
 * `contract-hub verify --data-dir` checks the contract row against the log it replays, not
 * only its head and length (docs/storage.md, "State snapshots" and PROTOCOL.md §12): an owner
 * that is not the genesis commit's owner (the hub decides access by the row's owner), and a
 * commit stored after the row's length (a row moved back while its commits stayed), are
 * damage of that contract, reported on the contract row (index null) or at the stray commit.
 */
import assert from "node:assert/strict";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import { ANONYMOUS } from "../src/hub/HubApi.js";
import Database from "../src/store/sqlite/Database.js";
import { cli } from "./cli-support.js";
import { Actor, cleanup, tempDir } from "./hub-fixtures.js";
import { openSqliteHub } from "./support/openSqliteHub.js";

interface VerifyDoc {
  ok: boolean;
  contracts: { contract_id: string; ok: boolean; damage?: { index: number | null; hash?: string } }[];
}

const owner = new Actor("owner");
let dir: string;

before(async () => {
  dir = tempDir();
  const hub = await openSqliteHub({ dataDir: dir, snapshotEvery: 0 });
  for (const id of ["first", "second"]) {
    await hub.createContract(owner.caller, { contract_id: id, model: null, rules: [], state: {} });
    for (const n of [1, 2, 3]) {
      const head = (await hub.getState(ANONYMOUS, id)).head;
      await hub.push(owner.caller, id, {
        commits: [buildWireCommit(id, head, [{ method: "post", path: "/n.json", value: n }])],
      });
    }
  }
  await hub.close();
});
after(cleanup);

/** verify over a copy of the store damaged by `damage` (kept in `lastCopy`). */
let lastCopy = "";
async function verifyDamaged(damage: (db: Database.Database) => void): Promise<{ code: number; doc: VerifyDoc }> {
  const copy = tempDir();
  lastCopy = copy;
  cpSync(dir, copy, { recursive: true });
  const db = new Database(join(copy, "hub.sqlite"));
  damage(db);
  db.close();
  const home = tempDir();
  const r = await cli(["verify", "--data-dir", copy, "--json"], { cwd: home, home });
  return { code: r.code, doc: r.json<VerifyDoc>() };
}

const report = (doc: VerifyDoc, id: string) => doc.contracts.find((c) => c.contract_id === id)!;

describe("verify --data-dir: the contract row against its log", () => {
  it("is clean on the untouched store", async () => {
    const { code, doc } = await verifyDamaged(() => {});
    assert.equal(code, 0);
    assert.deepEqual(
      doc.contracts.map((c) => c.ok),
      [true, true],
    );
  });

  it("reports a contract row whose owner is not the genesis commit's owner", async () => {
    const { code, doc } = await verifyDamaged((db) =>
      db.prepare("UPDATE contracts SET owner = ? WHERE id = 'second'").run("cd".repeat(32)),
    );
    assert.equal(code, 1);
    assert.equal(report(doc, "first").ok, true);
    assert.equal(report(doc, "second").ok, false);
    assert.equal(report(doc, "second").damage?.index, null);
  });

  it("reports a commit without a leaf and leaves it without one: verify changes nothing it checks", async () => {
    const { code, doc } = await verifyDamaged((db) =>
      db.prepare("UPDATE commits SET leaf_index = NULL WHERE contract_id = 'second' AND idx = 2").run(),
    );
    assert.equal(code, 1);
    assert.equal((doc as VerifyDoc & { tree: { ok: boolean } }).tree.ok, false);
    const db = new Database(join(lastCopy, "hub.sqlite"), { readonly: true });
    try {
      const row = db.prepare("SELECT leaf_index FROM commits WHERE contract_id = 'second' AND idx = 2").get() as {
        leaf_index: number | null;
      };
      assert.equal(row.leaf_index, null, "verify gave the commit no leaf");
    } finally {
      db.close();
    }
  });

  it("reports a commit stored after the contract row's length at its index", async () => {
    let stray = "";
    const { code, doc } = await verifyDamaged((db) => {
      const rows = db.prepare("SELECT idx, hash FROM commits WHERE contract_id = 'second' ORDER BY idx").all() as {
        idx: number;
        hash: string;
      }[];
      stray = rows[3]!.hash;
      // The row moved back one commit (a consistent head and length), the commit left behind.
      db.prepare("UPDATE contracts SET length = 3, head = ? WHERE id = 'second'").run(rows[2]!.hash);
    });
    assert.equal(code, 1);
    assert.equal(report(doc, "first").ok, true);
    assert.equal(report(doc, "second").ok, false);
    assert.equal(report(doc, "second").damage?.index, 3);
    assert.equal(report(doc, "second").damage?.hash, stray);
  });
});
