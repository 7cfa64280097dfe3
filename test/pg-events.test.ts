/**
 * Commit events across hub instances on one PostgreSQL database (PROTOCOL.md §9): a
 * subscriber of instance A sees commits written through B once each, in log order, with
 * the state after each, also across a lost LISTEN connection.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { buildCommit } from "../src/contract/engine.js";
import { ANONYMOUS, type CommitEvent } from "../src/hub/HubApi.js";
import { testDatabase } from "./support/pg.js";
import { type Instance, openInstance, Writer } from "./support/pgHubs.js";
import { actionOp, createTreasury } from "./support/treasury.js";

const db = await testDatabase();
const open: Instance[] = [];
after(async () => {
  for (const x of open.splice(0)) await x.close();
});

/**
 * Resolves once `cond()` holds, checking every few milliseconds; fails after `ms`. The test's
 * own timeout does not end this loop: it went on polling after the test failed, and the file
 * never ended.
 */
async function until(cond: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail("the condition did not come true in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function pair(errors: unknown[] = []): Promise<[Instance, Instance]> {
  const schema = db.freshSchema();
  const a = await openInstance(db.url, schema, errors);
  const b = await openInstance(db.url, schema, errors);
  open.push(a, b);
  return [a, b];
}

/** Pushes `n` commits on the current head through `x`; returns their hashes. */
async function pushThrough(x: Instance, w: Writer, id: string, n: number, tag: string): Promise<string[]> {
  const head = (await x.store.getContract(id))!.head;
  const commits = w.chain(id, head, n, tag);
  await x.hub.push(w.caller, id, { commits });
  return commits.map((c) => c.hash);
}

async function storedHashes(x: Instance, id: string): Promise<string[]> {
  return (await x.hub.pull(ANONYMOUS, id, {})).commits.map((c) => c.hash);
}

/**
 * Runs `fn` while `reader` can reach the database only through its LISTEN connection (its pool
 * connections ended, new ones refused) and `writer` keeps one pool connection: `reader` hears
 * of `writer`'s changes but cannot read them.
 */
async function unreadable(reader: Instance, writer: Instance, fn: () => Promise<void>): Promise<void> {
  const kept = await writer.store.pool.connect();
  const keptPid = (await kept.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
  await db.adminQuery(`ALTER DATABASE ${db.name} ALLOW_CONNECTIONS false`);
  try {
    await db.adminQuery(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = $1 AND application_name = 'contract-hub' AND pid <> $2`,
      [db.name, keptPid],
    );
    kept.release();
    assert.ok(reader.relay.pid !== null);
    await fn();
  } finally {
    await db.adminQuery(`ALTER DATABASE ${db.name} ALLOW_CONNECTIONS true`);
  }
}

describe("PostgreSQL: events across instances", { timeout: 120_000 }, () => {
  it("delivers commits written through another instance once each, in order, with their states", async () => {
    const errors: unknown[] = [];
    const [a, b] = await pair(errors);
    const w = new Writer();
    const id = "ev1";
    await b.hub.push(w.caller, id, { commits: [w.genesis(id)] });
    const events: CommitEvent[] = [];
    await a.hub.subscribe(ANONYMOUS, id, undefined, (e) => events.push(e));
    for (let round = 0; round < 6; round++) await pushThrough(round % 3 === 2 ? a : b, w, id, 4, `r${round}-`);
    await until(() => events.length >= 24);
    // A sentinel after the rest: once it arrived, any duplicate of an earlier commit would have too.
    await pushThrough(b, w, id, 1, "last");
    await until(() => events.length >= 25);
    const stored = await storedHashes(a, id);
    assert.deepEqual(
      events.map((e) => e.commit.index),
      Array.from({ length: 25 }, (_, i) => i + 1),
    );
    assert.deepEqual(
      events.map((e) => e.commit.hash),
      stored.slice(1),
    );
    assert.deepEqual(
      events.map((e) => e.state.commit_count),
      Array.from({ length: 25 }, (_, i) => i + 2),
    );
    assert.deepEqual(errors, []);
  });

  it("reaches subscribers of both instances and skips an instance's own notifications", async () => {
    const [a, b] = await pair();
    const w = new Writer();
    const id = "ev2";
    await a.hub.push(w.caller, id, { commits: [w.genesis(id)] });
    const seen: Record<string, number[]> = { a: [], b: [] };
    await a.hub.subscribe(ANONYMOUS, id, 1, (e) => seen.a!.push(e.commit.index));
    await b.hub.subscribe(ANONYMOUS, id, 1, (e) => seen.b!.push(e.commit.index));
    for (let i = 0; i < 5; i++) await pushThrough(a, w, id, 2, `a${i}-`);
    await pushThrough(b, w, id, 1, "b");
    // NOTIFY is delivered in commit order: when A has B's notice, it has had its own five.
    await until(() => a.relay.received >= 1 && seen.a!.length >= 11 && seen.b!.length >= 11);
    assert.equal(a.relay.received, 1);
    const all = Array.from({ length: 11 }, (_, i) => i + 1);
    assert.deepEqual(seen, { a: all, b: all });
  });

  it("catches up after its LISTEN connection was cut, losing no event", async () => {
    const [a, b] = await pair();
    const w = new Writer();
    const id = "ev3";
    await b.hub.push(w.caller, id, { commits: [w.genesis(id)] });
    const events: CommitEvent[] = [];
    await a.hub.subscribe(ANONYMOUS, id, undefined, (e) => events.push(e));
    await pushThrough(b, w, id, 2, "before");
    await until(() => events.length >= 2);
    // Refuse new connections (existing ones keep working), then cut A's LISTEN connection:
    // A cannot listen again until we allow it, so what B writes meanwhile is never notified
    // to A and must be found by the catch-up after reconnecting. (Pools keep idle connections.)
    await db.adminQuery(`ALTER DATABASE ${db.name} ALLOW_CONNECTIONS false`);
    try {
      const { rows } = await b.store.pool.query("SELECT pg_terminate_backend($1) AS ok", [a.relay.pid]);
      assert.equal(rows[0].ok, true);
      await until(() => a.relay.pid === null);
      await pushThrough(b, w, id, 3, "during");
    } finally {
      await db.adminQuery(`ALTER DATABASE ${db.name} ALLOW_CONNECTIONS true`);
    }
    await until(() => events.length >= 5);
    assert.equal(a.relay.reconnects, 1);
    assert.deepEqual(
      events.map((e) => e.commit.hash),
      (await storedHashes(a, id)).slice(1),
    );
    assert.deepEqual(
      events.map((e) => e.commit.index),
      [1, 2, 3, 4, 5],
    );
  });

  it("delivers a relayed commit whose read failed once the database answers again", async () => {
    const errors: unknown[] = [];
    const [a, b] = await pair(errors);
    const w = new Writer();
    const id = "ev4";
    await b.hub.push(w.caller, id, { commits: [w.genesis(id)] });
    const events: CommitEvent[] = [];
    await a.hub.subscribe(ANONYMOUS, id, undefined, (e) => events.push(e));
    await unreadable(a, b, async () => {
      await pushThrough(b, w, id, 1, "unread");
      await until(() => a.relay.received >= 1 && errors.length > 0);
      assert.equal(events.length, 0);
    });
    // No later commit comes to carry it: the relay reads it again by itself.
    await until(() => events.length >= 1);
    assert.deepEqual(
      events.map((e) => [e.commit.index, e.commit.hash]),
      [[1, (await storedHashes(a, id))[1]]],
    );
  });

  it("catches up after its LISTEN connection came back even when its first read then failed", async () => {
    const errors: unknown[] = [];
    const schema = db.freshSchema();
    const a = await openInstance(db.url, schema);
    // b has a single pool connection, which the test holds while b catches up.
    const b = await openInstance(db.url, schema, errors, {}, 1);
    open.push(a, b);
    const { hub, store, relay } = b;
    const w = new Writer();
    const id = "ev6";
    await a.hub.push(w.caller, id, { commits: [w.genesis(id)] });
    const events: CommitEvent[] = [];
    await hub.subscribe(ANONYMOUS, id, undefined, (e) => events.push(e));
    const held = await store.pool.connect();
    let released = false;
    try {
      await a.store.pool.query("SELECT 1");
      await db.adminQuery(`ALTER DATABASE ${db.name} ALLOW_CONNECTIONS false`);
      try {
        await db.adminQuery("SELECT pg_terminate_backend($1)", [relay.pid]);
        await until(() => relay.pid === null);
        await pushThrough(a, w, id, 1, "missed");
      } finally {
        await db.adminQuery(`ALTER DATABASE ${db.name} ALLOW_CONNECTIONS true`);
      }
      // b listens again, but its read of the contract waits for the held connection and fails.
      await until(
        () => relay.reconnects === 1 && errors.some((e) => /timeout exceeded when trying to connect/.test(String(e))),
      );
      held.release();
      released = true;
    } finally {
      if (!released) held.release();
    }
    await until(() => events.length >= 1);
    assert.deepEqual(
      events.map((e) => e.commit.index),
      [1],
    );
  });

  it("announces a proposal change relayed from another instance whose read failed once the database answers again", async () => {
    const errors: unknown[] = [];
    const [a, b] = await pair(errors);
    const t = await createTreasury(b.hub, "ev5", 3, 2);
    const seen: { hash: string; status: string }[] = [];
    const stop = await a.hub.subscribeProposals(t.signers[0]!.caller, t.id, (p) => seen.push(p));
    const p = buildCommit(t.id, t.head, actionOp("EXECUTE", "unread"));
    await unreadable(a, b, async () => {
      await b.hub.propose(t.signers[0]!.caller, t.id, { commit: p });
      await until(() => a.relay.proposalsReceived >= 1 && errors.length > 0);
      assert.equal(seen.length, 0);
    });
    await until(() => seen.length >= 1);
    stop();
    assert.deepEqual(
      seen.map((e) => [e.hash, e.status]),
      [[p.hash, "open"]],
    );
  });
});
