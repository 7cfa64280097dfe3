/**
 * Proposals on PostgreSQL behind two hub instances: each change of a proposal reaches a
 * subscriber once, even when a notice is read after later changes (the read shows the newest
 * state, which another notice's read or the instance's own publish announced already). The
 * late read is made deterministic by a store wrapper that holds it until the later step ran.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { buildCommit } from "../src/contract/engine.js";
import { Hub } from "../src/hub/Hub.js";
import { type CommitRelay, relayCommits } from "../src/store/postgres/commitRelay.js";
import { PostgresStore } from "../src/store/postgres/PostgresStore.js";
import type { Store } from "../src/store/Store.js";
import { testDatabase } from "./support/pg.js";
import { actionOp, createTreasury } from "./support/treasury.js";

const db = await testDatabase();
const closing: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closing.splice(0)) await close();
});

/** Resolves once `cond()` holds; fails after `ms` (polls: the relay works on its own). */
async function until(cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail("the condition did not come true in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A store call held until released, and the promise that tells it was made. */
class Hold {
  entered!: () => void;
  readonly reached = new Promise<void>((r) => (this.entered = r));
  release!: () => void;
  readonly released = new Promise<void>((r) => (this.release = r));
}

interface Held {
  hub: Hub;
  relay: CommitRelay;
  /** Proposal notices whose read and announcement are under way. */
  reading(): number;
  /** Holds the next `method` call whose arguments `match`, until `hold` is released. */
  arm(method: keyof Store, match: (args: unknown[]) => boolean, hold: Hold): void;
}

/** A hub instance on `schema` whose hub reads through a wrapper that can hold one call. */
async function instance(schema: string): Promise<Held> {
  const store = await PostgresStore.open({ connectionString: db.url, schema, poolSize: 4 });
  const armed = new Map<string, { match: (args: unknown[]) => boolean; hold: Hold }>();
  const wrapped = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const hook = armed.get(String(prop));
        if (hook === undefined || !hook.match(args)) return value.apply(target, args);
        armed.delete(String(prop));
        hook.hold.entered();
        return hook.hold.released.then(() => value.apply(target, args));
      };
    },
  });
  const hub = new Hub({ store: wrapped });
  let reading = 0;
  // The hub's own relay sink, counting the proposal reads under way.
  const relay = await relayCommits(store, {
    ...hub.relay,
    proposalChanged: async (contractId, hash) => {
      reading++;
      try {
        await hub.relay.proposalChanged(contractId, hash);
      } finally {
        reading--;
      }
    },
  });
  closing.push(async () => {
    await relay.close();
    await hub.close();
    await store.close();
  });
  return {
    hub,
    relay,
    reading: () => reading,
    arm: (method, match, hold) => armed.set(method, { match, hold }),
  };
}

type Event = { hash: string; status: string; signatures: Record<string, string>; commit_index?: number };

describe("proposal events on PostgreSQL: a late notice repeats nothing", { timeout: 120_000 }, () => {
  it("announces committed once when the read of an earlier notice already shows it committed", async () => {
    const schema = db.freshSchema();
    const a = await instance(schema);
    const b = await instance(schema);
    const t = await createTreasury(a.hub, "late-read", 3, 2);
    const events: Event[] = [];
    const stop = b.hub.bus.onProposal(t.id, (p) => events.push(p as Event));
    const c = buildCommit(t.id, t.head, actionOp("EXECUTE", "late"));
    c.head.signatures = t.signature(0, c.hash);
    // b reads the proposal for the notice of its creation only once a has completed it: that
    // read shows it committed, and so does the read for the notices that followed.
    const hold = new Hold();
    b.arm("getProposal", (args) => args[0] === t.id && args[1] === c.hash, hold);
    await a.hub.propose(t.signers[0]!.caller, t.id, { commit: c });
    await hold.reached;
    const done = await a.hub.signProposal(t.signers[1]!.caller, t.id, c.hash, { signatures: t.signature(1, c.hash) });
    assert.equal(done.proposal.status, "committed");
    hold.release();
    // Created, signed, committed: three notices, each read (or folded into a read) and announced.
    await until(() => b.relay.proposalsReceived >= 3 && b.reading() === 0);
    stop();
    assert.deepEqual(
      events.filter((e) => e.hash === c.hash).map((e) => [e.status, e.commit_index, Object.keys(e.signatures).length]),
      [["committed", 1, 2]],
    );
  });

  it("announces once a proposal its own push committed when another instance's earlier notice is read after it", async () => {
    const schema = db.freshSchema();
    const a = await instance(schema);
    const b = await instance(schema);
    const t = await createTreasury(a.hub, "own-push", 3, 2);
    const events: Event[] = [];
    const stop = b.hub.bus.onProposal(t.id, (p) => events.push(p as Event));
    const c = buildCommit(t.id, t.head, actionOp("EXECUTE", "pushed"));
    c.head.signatures = t.signature(0, c.hash);
    const other = buildCommit(t.id, t.head, actionOp("EXECUTE", "other"));
    // b's read for the notice of c's creation (through a) waits until b's own push committed c.
    const hold = new Hold();
    b.arm("getProposal", (args) => args[0] === t.id && args[1] === c.hash, hold);
    await a.hub.propose(t.signers[0]!.caller, t.id, { commit: c });
    await hold.reached;
    await a.hub.propose(t.signers[0]!.caller, t.id, { commit: other });
    c.head.signatures = { ...t.signature(0, c.hash), ...t.signature(1, c.hash) };
    await b.hub.push(t.signers[1]!.caller, t.id, { commits: [c] });
    // b announces its own append's proposal committed, then `other` stale.
    await until(() => events.some((e) => e.hash === other.hash && e.status === "stale"));
    hold.release();
    await until(() => b.relay.proposalsReceived >= 2 && b.reading() === 0);
    stop();
    assert.deepEqual(
      events.filter((e) => e.hash === c.hash).map((e) => [e.status, e.commit_index]),
      [["committed", 1]],
    );
  });

  it("announces committed, never stale, a proposal whose notice is read while another instance's push commits it", async () => {
    const schema = db.freshSchema();
    const a = await instance(schema);
    const b = await instance(schema);
    const t = await createTreasury(a.hub, "mid-read", 3, 2);
    const events: Event[] = [];
    const stop = b.hub.bus.onProposal(t.id, (p) => events.push(p as Event));
    const c = buildCommit(t.id, t.head, actionOp("EXECUTE", "mid"));
    c.head.signatures = t.signature(0, c.hash);
    // b's read for the notice of c's creation: the contract is read only after a's push has
    // committed c (the proposal, read before or after, must not look open on a moved head).
    const hold = new Hold();
    b.arm("getContract", (args) => args[0] === t.id, hold);
    await a.hub.propose(t.signers[0]!.caller, t.id, { commit: c });
    await hold.reached;
    c.head.signatures = { ...t.signature(0, c.hash), ...t.signature(1, c.hash) };
    await a.hub.push(t.signers[1]!.caller, t.id, { commits: [c] });
    hold.release();
    await until(() => b.relay.proposalsReceived >= 2 && b.reading() === 0);
    stop();
    const statuses = events.filter((e) => e.hash === c.hash).map((e) => e.status);
    assert.ok(!statuses.includes("stale"), `never stale: ${statuses}`);
    assert.equal(statuses.at(-1), "committed");
    assert.equal(statuses.filter((s) => s === "committed").length, 1);
  });
});
