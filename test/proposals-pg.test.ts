/**
 * Proposals on PostgreSQL behind two hub instances (each its own pool, as separate processes
 * would have): racing signers append a proposal once, and it survives the instances.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { buildCommit } from "../src/contract/engine.js";
import { testDatabase } from "./support/pg.js";
import { type Instance, openInstance } from "./support/pgHubs.js";
import { actionOp, createTreasury } from "./support/treasury.js";

const db = await testDatabase();
const open: Instance[] = [];
after(async () => {
  for (const x of open.splice(0)) await x.close();
});

/** Resolves once `cond()` holds; fails after `ms`. */
async function until(cond: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail("the condition did not come true in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function pair(): Promise<[Instance, Instance]> {
  const schema = db.freshSchema();
  const a = await openInstance(db.url, schema);
  const b = await openInstance(db.url, schema);
  open.push(a, b);
  return [a, b];
}

describe("proposals on PostgreSQL with two instances", { timeout: 120_000 }, () => {
  it("appends exactly once when two signers complete a 2-of-3 proposal at the same moment", async () => {
    const [a, b] = await pair();
    for (let round = 0; round < 5; round++) {
      const t = await createTreasury(a.hub, `race${round}`, 3, 2);
      const c = buildCommit(t.id, t.head, actionOp("EXECUTE"));
      c.head.signatures = t.signature(0, c.hash);
      const proposed = await a.hub.propose(t.signers[0]!.caller, t.id, { commit: c });
      assert.equal(proposed.proposal.status, "open");
      const [r1, r2] = await Promise.all([
        a.hub.signProposal(t.signers[1]!.caller, t.id, c.hash, { signatures: t.signature(1, c.hash) }),
        b.hub.signProposal(t.signers[2]!.caller, t.id, c.hash, { signatures: t.signature(2, c.hash) }),
      ]);
      assert.equal(r1.proposal.status, "committed");
      assert.equal(r2.proposal.status, "committed");
      assert.equal([r1, r2].filter((r) => r.commit !== undefined).length, 1, "one answer carries the append");
      const log = await b.hub.getLog(t.signers[0]!.caller, t.id, {});
      assert.equal(log.total, 2);
      assert.equal(log.commits[1]!.hash, c.hash);
    }
  });

  it("completes an all-signers proposal whichever instance receives the last signature", async () => {
    const [a, b] = await pair();
    for (let round = 0; round < 5; round++) {
      const t = await createTreasury(a.hub, `all${round}`, 3, 3);
      const c = buildCommit(t.id, t.head, actionOp("SWEEP"));
      await b.hub.propose(t.signers[0]!.caller, t.id, { commit: c });
      await Promise.all([
        a.hub.signProposal(t.signers[0]!.caller, t.id, c.hash, { signatures: t.signature(0, c.hash) }),
        b.hub.signProposal(t.signers[1]!.caller, t.id, c.hash, { signatures: t.signature(1, c.hash) }),
        a.hub.signProposal(t.signers[2]!.caller, t.id, c.hash, { signatures: t.signature(2, c.hash) }),
      ]);
      const { proposal } = await b.hub.getProposal(t.signers[0]!.caller, t.id, c.hash);
      assert.equal(proposal.status, "committed");
      assert.equal(Object.keys(proposal.signatures).length, 3);
      assert.equal((await a.hub.getLog(t.signers[0]!.caller, t.id, {})).total, 2);
    }
  });

  it("announces on every instance the proposals another instance's push of several commits made stale", async () => {
    const [a, b] = await pair();
    const t = await createTreasury(a.hub, "stale-relay", 3, 2);
    const events: { hash: string; status: string }[] = [];
    const stop = a.hub.bus.onProposal(t.id, (p) => events.push(p as { hash: string; status: string }));
    const executed = (parent: string, note: string) => {
      const c = buildCommit(t.id, parent, actionOp("EXECUTE", note));
      c.head.signatures = { ...t.signature(0, c.hash), ...t.signature(1, c.hash) };
      return c;
    };
    const c1 = executed(t.head, "one");
    await b.hub.push(t.signers[0]!.caller, t.id, { commits: [c1] });
    await until(() => a.relay.received >= 1);
    const p = buildCommit(t.id, c1.hash, actionOp("EXECUTE", "proposed"));
    p.head.signatures = t.signature(2, p.hash);
    await a.hub.propose(t.signers[2]!.caller, t.id, { commit: p });
    // One push of two commits through b: a hears of its last commit only, whose parent is
    // not the head the proposal was open on.
    const c2 = executed(c1.hash, "two");
    await b.hub.push(t.signers[0]!.caller, t.id, { commits: [c2, executed(c2.hash, "three")] });
    await until(() => events.some((e) => e.hash === p.hash && e.status === "stale"), 10_000);
    stop();
    assert.deepEqual(
      events.filter((e) => e.hash === p.hash).map((e) => e.status),
      ["open", "stale"],
    );
  });

  it("keeps open proposals across instances closing and a new one opening", async () => {
    const [a] = await pair();
    const t = await createTreasury(a.hub, "durable", 5, 3);
    const c = buildCommit(t.id, t.head, actionOp("EXECUTE"));
    c.head.signatures = { ...t.signature(0, c.hash), ...t.signature(4, c.hash) };
    await a.hub.propose(t.signers[0]!.caller, t.id, { commit: c });
    const schema = a.store.schema!;
    await a.close();
    open.splice(open.indexOf(a), 1);
    const fresh = await openInstance(db.url, schema);
    open.push(fresh);
    const { proposals } = await fresh.hub.listProposals(t.signers[1]!.caller, t.id, {});
    assert.equal(proposals.length, 1);
    assert.deepEqual(proposals[0]!.missing, [
      {
        predicate: "+threshold(3, /signers)",
        signers: ["/signers/s1.id", "/signers/s2.id", "/signers/s3.id"],
        needed: 1,
      },
    ]);
    const done = await fresh.hub.signProposal(t.signers[3]!.caller, t.id, c.hash, {
      signatures: t.signature(3, c.hash),
    });
    assert.equal(done.proposal.status, "committed");
    assert.equal(done.commit?.index, 1);
  });
});
