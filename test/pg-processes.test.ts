/**
 * Two real hub processes (`contract-hub start --database-url`) on one PostgreSQL database:
 * shared access keys, one chain under racing pushes, events across processes, and a
 * SIGKILL of one instance mid-load after which every acknowledged commit is stored, in one
 * chain, and every subscriber event arrived once, in order.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { HubClient } from "../src/client/HubClient.js";
import { type CommitNotification, HubSocket } from "../src/client/HubSocket.js";
import { isContractError } from "../src/contract/ContractError.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { type HubProcess, startHubProcess } from "./support/hubProcess.js";
import { testDatabase } from "./support/pg.js";
import { Writer } from "./support/pgHubs.js";

const db = await testDatabase();
const procs: HubProcess[] = [];
after(async () => {
  for (const p of procs.splice(0)) await p.kill();
});

async function start(): Promise<HubProcess> {
  const p = await startHubProcess(db.url);
  procs.push(p);
  return p;
}

/**
 * Resolves once `cond()` holds, checking every few milliseconds; fails after `ms`. The test's
 * own timeout does not end this loop: it went on polling after the test failed, and the file
 * never ended.
 */
async function until(cond: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) assert.fail("the condition did not come true in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Asserts `hashes` is one chain in `client`'s pull of `id` (from genesis to head); returns the pulled hashes. */
async function oneChain(client: HubClient, id: string): Promise<string[]> {
  const { commits, head } = await client.pull(id);
  let parent: string | null = null;
  for (const c of commits) {
    assert.equal(c.parent, parent);
    parent = c.hash;
  }
  assert.equal(parent, head);
  return commits.map((c) => c.hash);
}

describe("PostgreSQL: two hub processes", { timeout: 120_000 }, () => {
  const w = new Writer();
  const access = generateKeyPair().seed;
  let a: HubProcess;
  let b: HubProcess;
  let viaA: HubClient;
  let viaB: HubClient;

  it("share access keys and keep one chain when 20 pushes race on one head", async () => {
    [a, b] = await Promise.all([start(), start()]);
    await new HubClient({ url: a.url }).register(w.seed, access);
    viaA = new HubClient({ url: a.url, accessKey: access });
    viaB = new HubClient({ url: b.url, accessKey: access });
    // Registered through A, authenticated by B: keys (and nonces) live in the database.
    await viaB.push("race", [w.genesis("race")]);
    const head = (await viaA.getState("race")).head;
    const rivals = Array.from({ length: 20 }, (_, i) => w.chain("race", head, 2, `r${i}-`));
    const results = await Promise.allSettled(rivals.map((c, i) => (i % 2 ? viaA : viaB).push("race", c)));
    const winners = results.flatMap((r, i) => (r.status === "fulfilled" ? [i] : []));
    assert.equal(winners.length, 1);
    for (const r of results) if (r.status === "rejected") assert.ok(isContractError(r.reason, "CONFLICT"));
    const chain = [head, ...rivals[winners[0]!]!.map((c) => c.hash)];
    assert.deepEqual((await oneChain(viaA, "race")).slice(-3), chain);
    assert.deepEqual((await oneChain(viaB, "race")).slice(-3), chain);
  });

  it("loses no acknowledged commit and no event when one instance is killed mid-load and restarted", async () => {
    const ids = ["load0", "load1", "load2", "load3"];
    for (const id of ids) await viaA.push(id, [w.genesis(id)]);
    const events: CommitNotification[] = [];
    const socket = await HubSocket.connect(a.url, access);
    await socket.subscribe("load0", (e) => events.push(e));
    const acked = new Map<string, string[]>(ids.map((id) => [id, []]));
    let total = 0;
    let failures = 0;
    let phase: "before" | "down" | "after" = "before";
    let afterRestart = 0;
    let viaNewB = 0;
    const worker = async (id: string, n: number) => {
      for (let round = 0; phase !== "after" || afterRestart < 40; round++) {
        // Alternate instances; while B is down its pushes fail and are retried on a fresh head.
        const client = (round + n) % 2 === 0 ? viaA : viaB;
        const head = (await viaA.getState(id)).head;
        const commits = w.chain(id, head, 1 + (round % 3), `${id}-${round}-`);
        try {
          await client.push(id, commits);
        } catch (err) {
          // Refused connection or reset (B killed): unacknowledged, so not counted.
          failures++;
          if (isContractError(err) && err.code !== "UNAVAILABLE" && err.code !== "CONFLICT") throw err;
          continue;
        }
        acked.get(id)!.push(...commits.map((c) => c.hash));
        total++;
        if (phase === "after") afterRestart++;
        if (phase === "after" && client === viaB) viaNewB++;
      }
    };
    const load = Promise.all(ids.map((id, n) => worker(id, n)));
    await until(() => total >= 40);
    phase = "down";
    await b.kill();
    const killedAt = total;
    await until(() => total >= killedAt + 10);
    b = await start();
    viaB = new HubClient({ url: b.url, accessKey: access });
    phase = "after";
    await load;
    assert.ok(failures > 0, "some pushes went to the killed instance");
    assert.ok(viaNewB > 0, "some pushes went through the restarted instance");
    for (const id of ids) {
      const stored = await oneChain(viaB, id);
      assert.deepEqual(await oneChain(viaA, id), stored);
      const position = new Map(stored.map((h, i) => [h, i]));
      const mine = acked.get(id)!;
      // Every acknowledged commit is stored, in the order it was acknowledged.
      assert.ok(mine.every((h) => position.has(h)));
      const order = mine.map((h) => position.get(h)!);
      assert.deepEqual(
        order,
        [...order].sort((x, y) => x - y),
      );
    }
    const load0 = await oneChain(viaA, "load0");
    await until(() => events.length >= load0.length - 1);
    socket.close();
    assert.deepEqual(
      events.map((e) => e.commit.hash),
      load0.slice(1),
    );
  });

  it("stops gracefully on SIGTERM", async () => {
    assert.equal(await b.stop(), 0);
    assert.equal(await a.stop(), 0);
    procs.splice(0);
  });
});
