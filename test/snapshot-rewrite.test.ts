/**
 * A stored state snapshot the hub cannot use (docs/storage.md, "State snapshots": a digest
 * that does not match its text, another format, a head that is not the log's commit there) is
 * replaced by the snapshot the hub writes after replaying the log, also when it is exactly
 * as long as the contract: the next cold load uses the new one, and `verify` finds the
 * contract clean again.
 */
import assert from "node:assert/strict";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import { SNAPSHOT_FORMAT, snapshotDigest } from "../src/contract/stateSnapshot.js";
import { ANONYMOUS } from "../src/hub/HubApi.js";
import Database from "../src/store/sqlite/Database.js";
import { cli } from "./cli-support.js";
import { Actor, cleanup, tempDir } from "./hub-fixtures.js";
import { openSqliteHub } from "./support/openSqliteHub.js";

const MODEL = `model Loop {
  initial a
  a -> b [+GO]
  b -> a [+BACK]
}`;
const EVERY = 2;
const owner = new Actor("owner");
let dir: string;
let head: string;

interface SnapshotRow {
  length: number;
  head: string;
  format: number;
  state: string;
  digest: string;
}

before(async () => {
  dir = tempDir();
  const hub = await openSqliteHub({ dataDir: dir, snapshotEvery: EVERY });
  await hub.createContract(owner.caller, { contract_id: "loop", model: MODEL, rules: [], state: {} });
  for (const action of ["GO", "BACK", "GO"]) {
    const parent = (await hub.getState(ANONYMOUS, "loop")).head;
    await hub.push(owner.caller, "loop", {
      commits: [buildWireCommit("loop", parent, [{ method: "action", value: action }])],
    });
  }
  head = (await hub.getState(ANONYMOUS, "loop")).head;
  await hub.close();
});
after(cleanup);

const readRow = (path: string) => {
  const db = new Database(join(path, "hub.sqlite"), { readonly: true });
  try {
    return db.prepare("SELECT length, head, format, state, digest FROM state_snapshots").get() as SnapshotRow;
  } finally {
    db.close();
  }
};

/** A copy of the store whose snapshot (at the contract's head) `damage` changed, read once by a restarted hub. */
async function restartedOver(damage: string): Promise<string> {
  const copy = tempDir();
  cpSync(dir, copy, { recursive: true });
  const db = new Database(join(copy, "hub.sqlite"));
  db.prepare(`UPDATE state_snapshots SET ${damage}`).run();
  db.close();
  const hub = await openSqliteHub({ dataDir: copy, snapshotEvery: EVERY });
  try {
    assert.equal((await hub.getState(ANONYMOUS, "loop")).current_state, "b");
  } finally {
    await hub.close();
  }
  return copy;
}

describe("an unusable snapshot at the contract's head", () => {
  it("is where the setup left the snapshot: at the head, 4 commits", () => {
    const row = readRow(dir);
    assert.deepEqual([row.length, row.head, row.format], [4, head, SNAPSHOT_FORMAT]);
  });

  for (const [name, damage] of [
    ["a digest that does not match", `digest = '${"0".repeat(64)}'`],
    ["another format", `format = ${SNAPSHOT_FORMAT + 1}`],
    ["a head that is not the log's", `head = '${"ab".repeat(32)}'`],
  ] as const) {
    it(`${name}: replaced after the replay, and verify is clean`, async () => {
      const copy = await restartedOver(damage);
      const row = readRow(copy);
      assert.deepEqual([row.length, row.head, row.format], [4, head, SNAPSHOT_FORMAT]);
      assert.equal(row.digest, snapshotDigest(row.state));
      assert.deepEqual(row, readRow(dir));
      const home = tempDir();
      const verified = await cli(["verify", "--data-dir", copy, "--json"], { cwd: home, home });
      assert.equal(verified.code, 0, verified.stdout);
    });
  }
});
