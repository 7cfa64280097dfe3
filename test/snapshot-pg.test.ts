/**
 * State snapshots on PostgreSQL (docs/storage.md): written by one hub instance as its
 * appends pass each multiple of the interval, loaded by an instance started later, and
 * checked by verify against the log.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { verifyStore } from "../src/cli/verify/verifyStore.js";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import { snapshotDigest } from "../src/contract/stateSnapshot.js";
import { Hub } from "../src/hub/Hub.js";
import { ANONYMOUS } from "../src/hub/HubApi.js";
import { PostgresStore } from "../src/store/postgres/PostgresStore.js";
import { testDatabase } from "./support/pg.js";
import { Writer } from "./support/pgHubs.js";

const db = await testDatabase();
const schema = db.freshSchema();
const stores: PostgresStore[] = [];
after(async () => {
  for (const s of stores) await s.close();
});

const LOOP = `model Loop {
  initial idle
  idle -> busy [+GO]
  busy -> idle [+BACK]
}`;

async function instance(): Promise<{ hub: Hub; store: PostgresStore }> {
  const store = await PostgresStore.open({ connectionString: db.url, schema, poolSize: 4 });
  stores.push(store);
  return { hub: new Hub({ store, snapshotEvery: 2 }), store };
}

describe("state snapshots on PostgreSQL", { timeout: 60_000 }, () => {
  it("are written every 2 commits, loaded by a later instance, and checked by verify", async () => {
    const w = new Writer();
    const first = await instance();
    await first.hub.createContract(w.caller, { contract_id: "loop", model: LOOP, rules: [] });
    for (const label of ["GO", "BACK", "GO", "BACK", "GO"]) {
      const { head } = await first.hub.getState(ANONYMOUS, "loop");
      const commit = buildWireCommit("loop", head, [{ method: "action", value: label }]);
      await first.hub.push(w.caller, "loop", { commits: [commit] });
    }
    const view = await first.hub.getState(ANONYMOUS, "loop");
    assert.equal(view.current_state, "busy");
    // Closing the store waits for its writes in flight, the snapshot's among them.
    await first.store.close();
    const second = await instance();
    const snap = await second.store.readSnapshot("loop");
    assert.equal(snap?.length, 6);
    assert.equal(snap?.head, view.head);
    assert.deepEqual(await second.hub.getState(ANONYMOUS, "loop"), view);
    assert.deepEqual(await verifyStore(second.store, ["loop"]), [
      { contract_id: "loop", ok: true, commits: 6, head: view.head },
    ]);

    // A snapshot forged with a matching digest is what a third instance loads, and what verify names.
    const forged = snap!.state.replace(/"current":\[\d+\]/, (m) =>
      m === '"current":[0]' ? '"current":[1]' : '"current":[0]',
    );
    await second.store.pool.query(`UPDATE "${schema}".state_snapshots SET state = $1, digest = $2`, [
      forged,
      snapshotDigest(forged),
    ]);
    const third = await instance();
    assert.equal((await third.hub.getState(ANONYMOUS, "loop")).current_state, "idle");
    const [report] = await verifyStore(third.store, ["loop"]);
    assert.equal(report?.ok, false);
    assert.match(report?.damage?.message ?? "", /state snapshot at 6 commits: differs/);
  });
});
