/**
 * Stale proposals across hub instances (PostgreSQL): a WebSocket subscriber of one instance
 * hears that a proposal went stale when another instance's push of several commits moved the
 * head past it, even if its instance had published no commit of the contract since it
 * subscribed (the relay shows it the push's last commit only, whose parent is not the head
 * the proposal was open on). And a proposal that expired while the expiry sweep could not read
 * the store is announced by the next sweep.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { AccessRegistry } from "../src/auth/AccessRegistry.js";
import { Authenticator } from "../src/auth/Authenticator.js";
import { type CommitNotification, HubSocket, type ProposalNotification } from "../src/client/HubSocket.js";
import { buildCommit } from "../src/contract/engine.js";
import { startServers } from "../src/http/startServers.js";
import { Hub } from "../src/hub/Hub.js";
import { PostgresStore } from "../src/store/postgres/PostgresStore.js";
import { testDatabase } from "./support/pg.js";
import { type Instance, openInstance } from "./support/pgHubs.js";
import { actionOp, createTreasury } from "./support/treasury.js";

const db = await testDatabase();
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function until(cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail("the condition did not come true in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Two instances on one schema; the second serves REST and /ws on loopback. */
async function pair(): Promise<{ a: Instance; b: Instance; url: string }> {
  const schema = db.freshSchema();
  const a = await openInstance(db.url, schema);
  const b = await openInstance(db.url, schema);
  cleanups.push(
    () => a.close(),
    () => b.close(),
  );
  const servers = await startServers(
    {
      hub: b.hub,
      authenticator: new Authenticator({ store: b.store }),
      registry: new AccessRegistry({ store: b.store }),
      rateLimit: 0,
      logger: false,
    },
    { host: "127.0.0.1", port: 0, rpcPort: 0, rpc: false },
  );
  cleanups.push(() => servers.close());
  return { a, b, url: servers.restUrl };
}

describe("stale proposals relayed between instances", { timeout: 120_000 }, () => {
  it("announces stale to a subscriber of the other instance the proposals a push of several commits passed", async () => {
    const { a, url } = await pair();
    const t = await createTreasury(a.hub, "stale-gap", 3, 2);
    const executed = (parent: string, note: string) => {
      const c = buildCommit(t.id, parent, actionOp("EXECUTE", note));
      c.head.signatures = { ...t.signature(0, c.hash), ...t.signature(1, c.hash) };
      return c;
    };
    const socket = await HubSocket.connect(url);
    cleanups.push(async () => socket.close());
    const commits: CommitNotification[] = [];
    const proposals: ProposalNotification["proposal"][] = [];
    await socket.subscribe(t.id, (e) => commits.push(e), { onProposal: (e) => proposals.push(e.proposal) });
    // Open on the head the subscriber's instance read when it subscribed.
    const p = buildCommit(t.id, t.head, actionOp("EXECUTE", "proposed"));
    p.head.signatures = t.signature(2, p.hash);
    await a.hub.propose(t.signers[2]!.caller, t.id, { commit: p });
    await until(() => proposals.some((e) => e.hash === p.hash));
    const c1 = executed(t.head, "one");
    await a.hub.push(t.signers[0]!.caller, t.id, { commits: [c1, executed(c1.hash, "two")] });
    await until(() => commits.length === 2);
    await until(() => proposals.some((e) => e.hash === p.hash && e.status === "stale"));
    assert.deepEqual(
      commits.map((e) => e.commit.index),
      [1, 2],
    );
    assert.deepEqual(
      proposals.map((e) => [e.hash, e.status]),
      [
        [p.hash, "open"],
        [p.hash, "stale"],
      ],
    );
  });

  it("announces stale once the store answers again when the read after a relayed commit failed", async () => {
    const errors: unknown[] = [];
    const schema = db.freshSchema();
    const a = await openInstance(db.url, schema);
    const b = await openInstance(db.url, schema, errors);
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    // b's commits come only from this test, as its relay would hand them over.
    await b.relay.close();
    const t = await createTreasury(a.hub, "stale-retry", 3, 2);
    const seen: { hash: string; status: string }[] = [];
    const stop = await b.hub.subscribeProposals(t.signers[0]!.caller, t.id, (p) => seen.push(p));
    const p = buildCommit(t.id, t.head, actionOp("EXECUTE", "proposed"));
    await a.hub.propose(t.signers[0]!.caller, t.id, { commit: p });
    const c = buildCommit(t.id, t.head, actionOp("EXECUTE", "moved"));
    c.head.signatures = { ...t.signature(0, c.hash), ...t.signature(1, c.hash) };
    await a.hub.push(t.signers[0]!.caller, t.id, { commits: [c] });
    const stored = (await a.store.getCommitAt(t.id, 1))!;
    await db.adminQuery(`ALTER DATABASE ${db.name} ALLOW_CONNECTIONS false`);
    try {
      await db.adminQuery(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'contract-hub'",
        [db.name],
      );
      b.hub.relay.publish([{ contractId: t.id, stored, view: null }]);
      await until(() => errors.length > 0);
    } finally {
      await db.adminQuery(`ALTER DATABASE ${db.name} ALLOW_CONNECTIONS true`);
    }
    await until(() => seen.some((e) => e.hash === p.hash && e.status === "stale"));
    stop();
    assert.deepEqual(
      seen.map((e) => [e.hash, e.status]),
      [[p.hash, "stale"]],
    );
  });

  it("announces on the next sweep the proposals that expired while a sweep could not read them", async () => {
    const store = await PostgresStore.open({ connectionString: db.url, schema: db.freshSchema(), poolSize: 2 });
    const clock = { now: Math.floor(Date.now() / 1000) };
    const hub = new Hub({ store, now: () => clock.now });
    cleanups.push(async () => {
      await hub.close();
      await store.close();
    });
    const t = await createTreasury(hub, "expiry-gap", 3, 2);
    const seen: { hash: string; status: string }[] = [];
    const stop = hub.bus.onProposal(t.id, (p) => seen.push(p as (typeof seen)[number]));
    const p = buildCommit(t.id, t.head, actionOp("EXECUTE", "expires"));
    const { proposal } = await hub.propose(t.signers[0]!.caller, t.id, { commit: p });
    clock.now = proposal.expires_at + 1;
    // The store cannot be reached for this sweep: its connections ended, new ones refused.
    await db.adminQuery(`ALTER DATABASE ${db.name} ALLOW_CONNECTIONS false`);
    try {
      await db.adminQuery(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'contract-hub'",
        [db.name],
      );
      await assert.rejects(hub.sweepProposalExpiry());
    } finally {
      await db.adminQuery(`ALTER DATABASE ${db.name} ALLOW_CONNECTIONS true`);
    }
    clock.now += 60;
    assert.equal(await hub.sweepProposalExpiry(), 1);
    stop();
    assert.deepEqual(
      seen.map((e) => [e.hash, e.status]),
      [
        [p.hash, "open"],
        [p.hash, "expired"],
      ],
    );
  });
});
