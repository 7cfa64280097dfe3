/**
 * Commit timestamps never go backwards within a contract (docs/protocol.md, "Commit
 * timestamps"): the hub stamps a commit with max(its clock, the parent's timestamp), on every
 * path that appends. The clock is injected (Hub's `now`) so a clock stepping back is exact.
 * A stored log that already steps back (written before the rule) still loads and verifies.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { verifyStore } from "../src/cli/verify/verifyStore.js";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { signCommit } from "../src/contract/commitHash.js";
import { acceptCommit, buildCommit, replayLog } from "../src/contract/engine.js";
import type { StoredCommit } from "../src/contract/StoredCommit.js";
import { Hub } from "../src/hub/Hub.js";
import { snapshotOf } from "../src/hub/loadContractState.js";
import type { Store } from "../src/store/Store.js";
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { Writer } from "./support/pgHubs.js";
import { actionOp, createTreasury } from "./support/treasury.js";

const dirs: string[] = [];
const closers: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function openStore(dir?: string): Promise<{ store: SqliteStore; dir: string }> {
  const dataDir = dir ?? mkdtempSync(join(tmpdir(), "hub-stamps-"));
  if (dir === undefined) dirs.push(dataDir);
  const store = await SqliteStore.open({ dataDir });
  return { store, dir: dataDir };
}

/** A hub on `store` whose clock reads `clock.t`. */
function hubOn(store: Store, clock: { t: number }, snapshotEvery?: number): Hub {
  const hub = new Hub({ store, now: () => clock.t, ...(snapshotEvery !== undefined ? { snapshotEvery } : {}) });
  closers.push(() => hub.close());
  return hub;
}

async function timestamps(store: Store, id: string): Promise<number[]> {
  const record = (await store.getContract(id))!;
  const out: number[] = [];
  for await (const c of store.readCommits(id, 0, record.length)) out.push(c.timestamp);
  return out;
}

describe("commit timestamps never go backwards", () => {
  it("stamps a submit, a push and a completed proposal no earlier than the parent when the clock steps back", async () => {
    const { store } = await openStore();
    closers.push(() => store.close());
    const clock = { t: 2_000_000 };
    const hub = hubOn(store, clock);
    const w = new Writer();
    await hub.createContract(w.caller, { contract_id: "stamps", model: null, rules: [], state: {} });
    let { head } = await hub.getState(w.caller, "stamps");

    clock.t = 1_999_000;
    const [c1] = w.chain("stamps", head, 1, "a");
    const submitted = await hub.submitCommit(w.caller, "stamps", { commit: c1! });
    assert.equal(submitted.created, true);
    assert.equal(submitted.result.timestamp, 2_000_000);

    // Forward again, then back: a push's commits all take the head's later time.
    clock.t = 2_000_500;
    const [c2] = w.chain("stamps", c1!.hash, 1, "b");
    assert.equal((await hub.submitCommit(w.caller, "stamps", { commit: c2! })).result.timestamp, 2_000_500);
    clock.t = 1_000;
    const pushed = w.chain("stamps", c2!.hash, 3, "c");
    assert.equal((await hub.push(w.caller, "stamps", { commits: pushed })).pushed, 3);
    head = pushed[2]!.hash;
    assert.deepEqual(
      await timestamps(store, "stamps"),
      [2_000_000, 2_000_000, 2_000_500, 2_000_500, 2_000_500, 2_000_500],
    );

    // A proposal completed by a signature uploaded while the clock is behind.
    clock.t = 3_000_000;
    const t = await createTreasury(hub, "stamps-treasury", 3, 2);
    const p = buildCommit(t.id, t.head, actionOp("EXECUTE", "late"));
    p.head.signatures = t.signature(0, p.hash);
    await hub.propose(t.signers[0]!.caller, t.id, { commit: p });
    clock.t = 2_500_000;
    const signed = await hub.signProposal(t.signers[1]!.caller, t.id, p.hash, { signatures: t.signature(1, p.hash) });
    assert.equal(signed.commit?.timestamp, 3_000_000);
    assert.deepEqual(await timestamps(store, t.id), [3_000_000, 3_000_000]);
  });

  it("refuses a before() deadline on a clock behind once a commit was stamped past it", async () => {
    const { store } = await openStore();
    closers.push(() => store.close());
    const deadline = 1_700_000_100;
    const clock = { t: deadline - 1_000 };
    const hub = hubOn(store, clock);
    const w = new Writer();
    const model = `model D {
      initial open
      open -> open [+NOTE]
      open -> closed [+CLOSE +before(/terms/deadline.datetime)]
      closed -> closed []
    }`;
    const state = { "/terms/deadline.datetime": new Date(deadline * 1000).toISOString() };
    await hub.createContract(w.caller, { contract_id: "deadline", model, rules: [], state });
    const { head } = await hub.getState(w.caller, "deadline");
    clock.t = deadline + 100;
    const note = buildCommit("deadline", head, actionOp("NOTE"));
    assert.equal((await hub.submitCommit(w.caller, "deadline", { commit: note })).result.timestamp, deadline + 100);
    // The clock steps back before the deadline: the contract's time does not.
    clock.t = deadline - 50;
    const close = buildCommit("deadline", note.hash, actionOp("CLOSE"));
    const refused = await assertContractErrorAsync(
      () => hub.submitCommit(w.caller, "deadline", { commit: close }),
      "VALIDATION_FAILED",
      "no_transition",
    );
    const candidates = refused.candidates as { to: string; failed: { property: string; kind: string }[] }[];
    assert.deepEqual(candidates.find((c) => c.to === "closed")?.failed, [
      { property: "+before(/terms/deadline.datetime)", kind: "missing" },
    ]);
    assert.equal((await hub.getState(w.caller, "deadline")).head, note.hash);
  });

  it("shows a proposal's missing signatures judged at the time its commit would be stamped with", async () => {
    const { store } = await openStore();
    closers.push(() => store.close());
    const start = 1_700_000_100;
    const clock = { t: start - 1_000 };
    const hub = hubOn(store, clock);
    const [a, b] = [new Writer(), new Writer()];
    const model = `model S {
      initial open
      open -> open [+NOTE]
      open -> closed [+CLOSE +after(/terms/start.datetime) +signed_by(/users/a.id) +signed_by(/users/b.id)]
      closed -> closed []
    }`;
    const state = {
      "/terms/start.datetime": new Date(start * 1000).toISOString(),
      "/users/a.id": a.key,
      "/users/b.id": b.key,
    };
    await hub.createContract(a.caller, { contract_id: "start", model, rules: [], state });
    const { head } = await hub.getState(a.caller, "start");
    clock.t = start + 100;
    const note = buildCommit("start", head, actionOp("NOTE"));
    await hub.submitCommit(a.caller, "start", { commit: note });
    clock.t = start - 50;
    const close = buildCommit("start", note.hash, actionOp("CLOSE"));
    close.head.signatures = { "/users/a.id": signCommit(close.hash, a.seed) };
    const want = [{ predicate: "+signed_by(/users/b.id)", signers: ["/users/b.id"], needed: 1 }];
    const proposed = await hub.propose(a.caller, "start", { commit: close });
    assert.equal(proposed.created, true);
    assert.deepEqual(proposed.proposal.missing, want);
    assert.deepEqual((await hub.getProposal(a.caller, "start", close.hash)).proposal.missing, want);
    const signed = await hub.signProposal(b.caller, "start", close.hash, {
      signatures: { "/users/b.id": signCommit(close.hash, b.seed) },
    });
    assert.equal(signed.commit?.timestamp, start + 100);
  });

  it("keeps the floor after a restart, whether the state is replayed or loaded from a snapshot", async () => {
    const { store, dir } = await openStore();
    const clock = { t: 5_000_000 };
    const first = new Hub({ store, now: () => clock.t, snapshotEvery: 0 });
    const w = new Writer();
    await first.createContract(w.caller, { contract_id: "restart", model: null, rules: [], state: {} });
    const { head } = await first.getState(w.caller, "restart");
    const chain = w.chain("restart", head, 3, "r");
    clock.t = 5_100_000;
    await first.push(w.caller, "restart", { commits: chain });
    await first.close();
    // The snapshot holds no head time: loading from it must read the head commit's.
    await store.saveSnapshot(
      snapshotOf(await replayLog("restart", store.readCommits("restart", 0, 4), { trusted: true })),
    );
    assert.equal((await store.readSnapshot("restart"))?.length, 4);
    await store.close();

    for (const snapshotEvery of [2, 0]) {
      const { store: again } = await openStore(dir);
      closers.push(() => again.close());
      clock.t = 4_000_000;
      const hub = hubOn(again, clock, snapshotEvery);
      const { head: h } = await hub.getState(w.caller, "restart");
      const [next] = w.chain("restart", h, 1, `after${snapshotEvery}`);
      assert.equal((await hub.submitCommit(w.caller, "restart", { commit: next! })).result.timestamp, 5_100_000);
    }
  });

  it("loads and verifies a stored log that steps back, and stamps after it from the head's time", async () => {
    const { store } = await openStore();
    closers.push(() => store.close());
    const clock = { t: 7_000_000 };
    const hub = hubOn(store, clock);
    const w = new Writer();
    await hub.createContract(w.caller, { contract_id: "old-log", model: null, rules: [], state: {} });
    const { head } = await hub.getState(w.caller, "old-log");
    // As a hub before this rule could store it: a commit stamped earlier than its parent.
    const state = await replayLog("old-log", store.readCommits("old-log", 0, 1), { trusted: true });
    const [back] = w.chain("old-log", head, 1, "old");
    const { stored } = await acceptCommit(state, back!, { timestamp: 6_000_000 });
    await store.appendCommits("old-log", head, [stored as StoredCommit]);

    const [report] = await verifyStore(store, ["old-log"]);
    assert.equal(report!.ok, true);
    const fresh = hubOn(store, clock);
    assert.equal((await fresh.getState(w.caller, "old-log")).head, back!.hash);
    clock.t = 5_000_000;
    const [next] = w.chain("old-log", back!.hash, 1, "new");
    assert.equal((await fresh.submitCommit(w.caller, "old-log", { commit: next! })).result.timestamp, 6_000_000);
    assert.deepEqual(await timestamps(store, "old-log"), [7_000_000, 6_000_000, 6_000_000]);
  });
});
