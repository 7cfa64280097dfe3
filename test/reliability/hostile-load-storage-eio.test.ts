/**
 * Hostile load, I/O errors on the embedded store (docs/reliability.md): a real hub process
 * whose disk fails on demand. An LD_PRELOAD library compiled here (support/eioShim.c) makes
 * every write and fsync to the SQLite file fail with EIO while a flag file exists, as a
 * failing device does. Writes answer 503 UNAVAILABLE `storage`/`io_error` with Retry-After,
 * `/health` answers 503 `degraded` (`io_error`) while it lasts, reads of stored contracts go
 * on, writes resume once the device recovers without a restart, and after a kill -9 every
 * acknowledged commit is there. The long form runs more fault cycles with more commits.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { killAllHubs, startHub } from "../support/hubProcess.js";
import {
  assertDegraded,
  assertKeptAfterKill,
  assertStorageRefusal,
  healthBecomes,
  rawRequest,
  timedHealth,
} from "./support/faults.js";
import { Party } from "./support/party.js";
import { harnessSeed, LONG, Rng } from "./support/seeded.js";

const CYCLES = LONG ? 5 : 1;
const COMMITS_BEFORE = LONG ? 200 : 20;

const rng = new Rng(harnessSeed("hostile-load-storage-eio"));
const owner = new Party(rng);
const figures: Record<string, unknown> = {};
const base = mkdtempSync(join(tmpdir(), "hostile-eio-"));
after(async () => {
  await killAllHubs();
  rmSync(base, { recursive: true, force: true });
  console.log(`[hostile-load-storage-eio] figures ${JSON.stringify(figures)}`);
});

/** Compiles the shim with the machine's C compiler; the reason it cannot, otherwise. */
function buildShim(): { path: string } | { skip: string } {
  const path = join(base, "eio-shim.so");
  const source = new URL("./support/eioShim.c", import.meta.url).pathname;
  try {
    execFileSync("cc", ["-shared", "-fPIC", "-O2", "-o", path, source, "-ldl"], { stdio: "pipe" });
    return { path };
  } catch (err) {
    return { skip: `cannot build the EIO shim with cc: ${(err as Error).message.split("\n")[0]}` };
  }
}

describe("storage faults, SQLite I/O errors", { timeout: 600_000 }, () => {
  it("EIO: 503 io_error with Retry-After, /health degraded, reads go on, writes resume without restart, nothing acknowledged lost", async (t) => {
    const shim = buildShim();
    if ("skip" in shim) {
      t.skip(shim.skip);
      return;
    }
    const flag = join(base, "device-failing");
    const dataDir = join(base, "data");
    const env = { LD_PRELOAD: shim.path, EIO_SHIM_FLAG: flag, EIO_SHIM_MATCH: join(dataDir, "hub.sqlite") };
    const hub = await startHub(dataDir, [], env);
    await owner.register(hub.url);
    const client = owner.client(hub.url);
    await client.push("bystander", [owner.genesis("bystander")]);
    await client.push("writes", [owner.genesis("writes")]);
    const acknowledged: string[] = [(await client.getState("writes")).head];
    const cycles: Record<string, unknown>[] = [];

    for (let cycle = 0; cycle < CYCLES; cycle++) {
      for (const c of owner.chain("writes", acknowledged.at(-1)!, COMMITS_BEFORE, `c${cycle}`)) {
        await client.push("writes", [c]);
        acknowledged.push(c.hash);
      }
      writeFileSync(flag, "");
      const [refused] = owner.chain("writes", acknowledged.at(-1)!, 1, `failing${cycle}`);
      const answer = await rawRequest(
        hub.url,
        "POST",
        "/contracts/writes/push",
        { commits: [refused] },
        owner.accessSeed,
      );
      assertStorageRefusal(answer, "io_error");

      const polls = await healthBecomes(hub.url, "degraded");
      const health = await timedHealth(hub.url);
      assertDegraded(health, "io_error");

      // Reads of what is stored need no write.
      const read = await rawRequest(hub.url, "GET", "/contracts/bystander/state");
      assert.equal(read.status, 200, JSON.stringify(read.body));

      rmSync(flag);
      const pollsToOk = await healthBecomes(hub.url, "ok");
      // The refused commit was not stored: the same one goes through now.
      await client.push("writes", [refused!]);
      acknowledged.push(refused!.hash);
      cycles.push({ pollsToDegraded: polls, healthMs: Math.round(health.ms), pollsToOk });
    }

    // A crash after the faults: every acknowledged commit is on disk, and nothing else.
    await assertKeptAfterKill(hub, () => startHub(dataDir), owner, acknowledged);
    figures.eio = { cycles, acknowledged: acknowledged.length };
  });
});
