/**
 * Proposals on PostgreSQL behind two hub instances (each its own pool, as separate processes
 * would have): racing signers append a proposal once, every instance's subscribers hear of
 * each change of a proposal whichever instance made it, and it survives the instances.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { buildCommit } from "../src/contract/engine.js";
import { testDatabase } from "./support/pg.js";
import { type Instance, openInstance, Writer } from "./support/pgHubs.js";
import { actionOp, createTreasury, treasuryModel } from "./support/treasury.js";

const db = await testDatabase();
const open: Instance[] = [];
after(async () => {
  for (const x of open.splice(0)) await x.close();
});

/**
 * Resolves once `cond()` holds; fails after `ms`. Generous: a notification between two
 * instances takes milliseconds, but a machine loaded to eight times its cores once took over 5 s.
 */
async function until(cond: () => boolean, ms = 30_000): Promise<void> {
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
    await until(() => events.some((e) => e.hash === p.hash && e.status === "stale"), 30_000);
    stop();
    assert.deepEqual(
      events.filter((e) => e.hash === p.hash).map((e) => e.status),
      ["open", "stale"],
    );
  });

  it("tells subscribers of every instance each change of a proposal made through another", async () => {
    const [a, b] = await pair();
    const t = await createTreasury(a.hub, "relayed", 3, 2);
    const events: { hash: string; status: string; signatures: Record<string, string> }[] = [];
    const stop = b.hub.bus.onProposal(t.id, (p) => events.push(p as (typeof events)[number]));
    const seen = (hash: string) => events.filter((e) => e.hash === hash);
    // Withdrawn: proposed with one of two signatures, then withdrawn, both through a.
    const w = buildCommit(t.id, t.head, actionOp("EXECUTE", "withdrawn"));
    w.head.signatures = t.signature(0, w.hash);
    await a.hub.propose(t.signers[0]!.caller, t.id, { commit: w });
    await until(() => seen(w.hash).length >= 1);
    await a.hub.withdrawProposal(t.signers[0]!.caller, t.id, w.hash);
    await until(() => seen(w.hash).some((e) => e.status === "withdrawn"));
    // Committed: proposed through a, completed by a second signature through a.
    const c = buildCommit(t.id, t.head, actionOp("EXECUTE", "committed"));
    await a.hub.propose(t.signers[0]!.caller, t.id, { commit: c });
    await until(() => seen(c.hash).length >= 1);
    await a.hub.signProposal(t.signers[1]!.caller, t.id, c.hash, { signatures: t.signature(1, c.hash) });
    await until(() => seen(c.hash).some((e) => Object.keys(e.signatures).length === 1));
    await a.hub.signProposal(t.signers[2]!.caller, t.id, c.hash, { signatures: t.signature(2, c.hash) });
    await until(() => seen(c.hash).some((e) => e.status === "committed"));
    stop();
    assert.deepEqual(
      seen(w.hash).map((e) => e.status),
      ["open", "withdrawn"],
    );
    // Each event is the proposal as stored when b read it: the signatures only grow, and the
    // last is the committed one with both.
    const committed = seen(c.hash);
    assert.deepEqual(committed[0], { ...committed[0]!, status: "open", signatures: {} });
    assert.equal(committed.at(-1)!.status, "committed");
    assert.equal(Object.keys(committed.at(-1)!.signatures).length, 2);
    assert.equal(committed.filter((e) => e.status === "committed").length, 1);
    assert.ok(b.relay.proposalsReceived >= 4, `${b.relay.proposalsReceived} proposal notices`);
    // a tells its own subscribers itself, never from its own notices.
    assert.equal(a.relay.proposalsReceived, 0);
  });

  it("marks committed a proposal whose commit another instance's push appended directly, and every instance announces it so", async () => {
    const [a, b] = await pair();
    const t = await createTreasury(a.hub, "direct", 3, 2);
    type Event = { hash: string; status: string; commit_index?: number };
    const onA: Event[] = [];
    const onB: Event[] = [];
    const stops = [
      a.hub.bus.onProposal(t.id, (p) => onA.push(p as Event)),
      b.hub.bus.onProposal(t.id, (p) => onB.push(p as Event)),
    ];
    const c = buildCommit(t.id, t.head, actionOp("EXECUTE", "direct"));
    c.head.signatures = t.signature(0, c.hash);
    const other = buildCommit(t.id, t.head, actionOp("EXECUTE", "other"));
    await a.hub.propose(t.signers[0]!.caller, t.id, { commit: c });
    await a.hub.propose(t.signers[0]!.caller, t.id, { commit: other });
    // Completed off the hub and pushed through b with a commit after it: a hears of the push's
    // last commit only, and of the proposal through its notice.
    c.head.signatures = { ...t.signature(0, c.hash), ...t.signature(1, c.hash) };
    const next = buildCommit(t.id, c.hash, actionOp("EXECUTE", "next"));
    next.head.signatures = { ...t.signature(1, next.hash), ...t.signature(2, next.hash) };
    await b.hub.push(t.signers[1]!.caller, t.id, { commits: [c, next] });
    const settled = (events: Event[]) =>
      events.some((e) => e.hash === c.hash && e.status === "committed") &&
      events.some((e) => e.hash === other.hash && e.status === "stale");
    // (b announces `other` stale too; a, which has published nothing of this contract, does not
    // know the head it was open on: a relayed push shows it only its last commit.)
    await until(() => settled(onB) && onA.some((e) => e.hash === c.hash && e.status === "committed"), 30_000);
    await new Promise((r) => setTimeout(r, 100));
    for (const s of stops) s();
    for (const events of [onA, onB]) {
      const mine = events.filter((e) => e.hash === c.hash && e.status !== "open");
      assert.deepEqual(
        mine.map((e) => [e.status, e.commit_index]),
        [["committed", 1]],
        "announced committed once, never stale",
      );
    }
    const { proposal } = await a.hub.getProposal(t.signers[2]!.caller, t.id, c.hash);
    assert.equal(proposal.status, "committed");
    assert.equal(proposal.commit_index, 1);
    assert.deepEqual(proposal.signatures, c.head.signatures);
    const committed = await a.hub.listProposals(t.signers[2]!.caller, t.id, { status: "committed" });
    assert.deepEqual(
      committed.proposals.map((p) => p.hash),
      [c.hash],
    );
    const late = await a.hub.signProposal(t.signers[2]!.caller, t.id, c.hash, { signatures: t.signature(1, c.hash) });
    assert.equal(late.proposal.status, "committed");
  });

  it("announces the open proposals again after its notification connection was lost", async () => {
    const [a, b] = await pair();
    const t = await createTreasury(a.hub, "relisten", 3, 2);
    const events: { hash: string; status: string }[] = [];
    const stop = b.hub.bus.onProposal(t.id, (p) => events.push(p as (typeof events)[number]));
    const p = buildCommit(t.id, t.head, actionOp("EXECUTE", "missed"));
    p.head.signatures = t.signature(0, p.hash);
    // Cut b's LISTEN connection while refusing new ones, so b cannot hear of the proposal.
    await db.adminQuery(`ALTER DATABASE ${db.name} ALLOW_CONNECTIONS false`);
    try {
      const { rows } = await a.store.pool.query("SELECT pg_terminate_backend($1) AS ok", [b.relay.pid]);
      assert.equal(rows[0].ok, true);
      await until(() => b.relay.pid === null);
      await a.hub.propose(t.signers[0]!.caller, t.id, { commit: p });
    } finally {
      await db.adminQuery(`ALTER DATABASE ${db.name} ALLOW_CONNECTIONS true`);
    }
    await until(() => events.some((e) => e.hash === p.hash), 30_000);
    stop();
    assert.equal(b.relay.reconnects, 1);
    assert.equal(b.relay.proposalsReceived, 0);
    assert.deepEqual(
      events.map((e) => [e.hash, e.status]),
      [[p.hash, "open"]],
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

  it("sends no proposal of a private contract to a subscriber whose grant another instance withdrew", async () => {
    const [a, b] = await pair();
    const owner = new Writer();
    const signer = new Writer();
    const reader = new Writer();
    const id = "private-proposals";
    await a.hub.createContract(owner.caller, {
      contract_id: id,
      model: treasuryModel(2),
      rules: [],
      readers: [`ed25519:${reader.key}`],
      state: { "/signers/s0.id": owner.key, "/signers/s1.id": signer.key },
    });
    const seenByOwner: { hash: string }[] = [];
    const seenByReader: { hash: string }[] = [];
    const closed: string[] = [];
    const stops = [
      await b.hub.subscribeProposals(owner.caller, id, (p) => seenByOwner.push(p)),
      await b.hub.subscribeProposals(
        reader.caller,
        id,
        (p) => seenByReader.push(p),
        (reason) => closed.push(reason),
      ),
    ];
    // Withdrawn through a: b hears nothing of it, its subscription was made while it could read.
    await a.hub.grant(owner.caller, id, { identity: `ed25519:${reader.key}`, role: "none" });
    const { head } = await a.hub.getState(owner.caller, id);
    const p = buildCommit(id, head, actionOp("SWEEP", "secret"));
    await a.hub.propose(owner.caller, id, { commit: p });
    await until(() => seenByOwner.some((e) => e.hash === p.hash) && closed.length + seenByReader.length > 0, 30_000);
    for (const stop of stops) stop();
    assert.deepEqual(seenByReader, []);
    assert.deepEqual(closed, ["access_lost"]);
  });
});
