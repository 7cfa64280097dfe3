/**
 * Hostile load, storage faults on PostgreSQL (docs/reliability.md): a real hub process talks
 * to the real server through a TCP proxy on loopback, which the test cuts (every connection
 * dropped, new ones refused) and restores; the shared server itself keeps running. While the
 * database is unreachable, writes answer 503 UNAVAILABLE `storage` (`unreachable`) with
 * Retry-After and `/health` answers 503 `degraded` within the generous bound; once the proxy
 * is back, writes resume without a restart and every acknowledged commit is there. The long
 * form runs more cut-and-restore cycles with more commits before each.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type HubProcess, killAllHubs, startHub } from "../support/hubProcess.js";
import { testDatabase } from "../support/pg.js";
import {
  assertDegraded,
  assertKeptAfterKill,
  assertStorageRefusal,
  healthBecomes,
  rawRequest,
  TcpProxy,
  timedHealth,
} from "./support/faults.js";
import { Party } from "./support/party.js";
import { harnessSeed, LONG, Rng } from "./support/seeded.js";

const CYCLES = LONG ? 5 : 1;
const COMMITS_BEFORE = LONG ? 200 : 20;

const rng = new Rng(harnessSeed("hostile-load-storage-pg"));
const owner = new Party(rng);
const base = mkdtempSync(join(tmpdir(), "hostile-pg-"));
const figures: Record<string, unknown> = {};
let proxy: TcpProxy;
let databaseUrl: string;

const db = await testDatabase();
before(async () => {
  const target = new URL(db.url);
  proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
  target.port = String(proxy.port);
  databaseUrl = target.toString();
});
after(async () => {
  await killAllHubs();
  await proxy?.close();
  rmSync(base, { recursive: true, force: true });
  console.log(`[hostile-load-storage-pg] figures ${JSON.stringify(figures)}`);
});

const start = (): Promise<HubProcess> => startHub(join(base, "data"), ["--database-url", databaseUrl]);

describe("storage faults, PostgreSQL", { timeout: 600_000 }, () => {
  it("unreachable database: 503 storage with Retry-After, /health degraded, writes resume without restart, nothing acknowledged lost", async () => {
    const hub = await start();
    await owner.register(hub.url);
    const client = owner.client(hub.url);
    await client.push("writes", [owner.genesis("writes")]);
    const acknowledged: string[] = [(await client.getState("writes")).head];
    const cycles: Record<string, unknown>[] = [];

    for (let cycle = 0; cycle < CYCLES; cycle++) {
      for (const c of owner.chain("writes", acknowledged.at(-1)!, COMMITS_BEFORE, `c${cycle}`)) {
        await client.push("writes", [c]);
        acknowledged.push(c.hash);
      }
      await proxy.cut();
      const [next] = owner.chain("writes", acknowledged.at(-1)!, 1, `cut${cycle}`);
      const refusal = await rawRequest(
        hub.url,
        "POST",
        "/contracts/writes/push",
        { commits: [next] },
        owner.accessSeed,
      );
      assertStorageRefusal(refusal, "unreachable");
      // Anonymous reads need the database too (the contract row): also a named 503, never a 500.
      const read = await rawRequest(hub.url, "GET", "/contracts/writes");
      assert.equal(read.status, 503, JSON.stringify(read.body));
      assert.equal(read.body.details?.reason, "storage");

      const health = await timedHealth(hub.url);
      assertDegraded(health, "unreachable");

      await proxy.restore();
      const polls = await healthBecomes(hub.url, "ok");
      // The refused commit was never stored: the same one goes through now.
      await client.push("writes", [next!]);
      acknowledged.push(next!.hash);
      cycles.push({ healthMs: Math.round(health.ms), pollsToOk: polls });
    }

    await assertKeptAfterKill(hub, start, owner, acknowledged);
    figures.unreachable = { cycles, acknowledged: acknowledged.length };
  });
});
