/**
 * Commit events across hub instances on one PostgreSQL database (PROTOCOL.md §9): a
 * subscriber of instance A sees commits written through B once each, in log order, with
 * the state after each, also across a lost LISTEN connection.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { ANONYMOUS, type CommitEvent } from "../src/hub/HubApi.js";
import { testDatabase } from "./support/pg.js";
import { type Instance, openInstance, Writer } from "./support/pgHubs.js";

const db = await testDatabase();
const open: Instance[] = [];
after(async () => {
  for (const x of open.splice(0)) await x.close();
});

/** Resolves once `cond()` holds, checking every few milliseconds (the test's own timeout bounds it). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
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

describe("PostgreSQL: events across instances", { timeout: 60_000 }, () => {
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
});
