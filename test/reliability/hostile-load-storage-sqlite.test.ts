/**
 * Hostile load, storage faults on the embedded store (docs/reliability.md): a real hub
 * process whose SQLite file lives on a small tmpfs that the test fills to the last byte, and
 * a hub whose file the test damages page by page. Disk full answers 503 UNAVAILABLE
 * `storage` with Retry-After and `/health` 503 `degraded` while it lasts; anonymous reads of
 * other contracts go on; writes resume once space is freed, without a restart; and after a
 * kill -9 every acknowledged commit is there. A damaged page is CORRUPTED naming its
 * contract while the others are served. The long form runs more fill-and-free cycles with
 * more commits before each.
 */
import assert from "node:assert/strict";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { isContractError } from "../../src/contract/ContractError.js";
import { killAllHubs, startHub } from "../support/hubProcess.js";
import {
  assertDegraded,
  assertKeptAfterKill,
  assertStorageRefusal,
  healthBecomes,
  mountSmallFs,
  rawRequest,
  timedHealth,
} from "./support/faults.js";
import { Party } from "./support/party.js";
import { harnessSeed, LONG, Rng } from "./support/seeded.js";

const CYCLES = LONG ? 4 : 1;
const COMMITS_BEFORE = LONG ? 200 : 20;
const FS_MEGABYTES = 24;

const rng = new Rng(harnessSeed("hostile-load-storage-sqlite"));
const owner = new Party(rng);
const figures: Record<string, unknown> = {};
const cleanups: (() => void)[] = [];
after(async () => {
  await killAllHubs();
  for (const c of cleanups.reverse()) c();
  console.log(`[hostile-load-storage-sqlite] figures ${JSON.stringify(figures)}`);
});

/** Writes zeros into `path` until the file system refuses; returns the bytes written. */
function fillDisk(path: string): number {
  const fd = openSync(path, "w");
  let written = 0;
  try {
    for (const size of [1 << 20, 1 << 16, 1 << 12, 512]) {
      const chunk = Buffer.alloc(size);
      for (;;) {
        try {
          written += writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

/** A signed post commit carrying `bytes` of payload, so a few fill the WAL. */
const bigChain = (id: string, parent: string, n: number, tag: string) =>
  owner.chain(id, parent, n, `${tag}-${"w".repeat(8000)}`);

describe("storage faults, SQLite", { timeout: 600_000 }, () => {
  it("disk full: 503 storage with Retry-After, /health degraded, reads go on, writes resume without restart, nothing acknowledged lost", async (t) => {
    const fs = mountSmallFs(FS_MEGABYTES);
    if ("skip" in fs) {
      t.skip(fs.skip);
      return;
    }
    cleanups.push(fs.unmount);
    const dataDir = join(fs.dir, "data");
    const hub = await startHub(dataDir);
    await owner.register(hub.url);
    const client = owner.client(hub.url);
    await client.createContract({ contract_id: "bystander", model: null, rules: [] });
    await client.push("writes", [owner.genesis("writes")]);
    const acknowledged: string[] = [(await client.getState("writes")).head];
    const cycles: Record<string, unknown>[] = [];

    for (let cycle = 0; cycle < CYCLES; cycle++) {
      let head = acknowledged.at(-1)!;
      for (const c of owner.chain("writes", head, COMMITS_BEFORE, `c${cycle}`)) {
        await client.push("writes", [c]);
        acknowledged.push(c.hash);
      }
      head = acknowledged.at(-1)!;
      const filler = join(fs.dir, `filler-${cycle}`);
      const filled = fillDisk(filler);

      // Push until the store refuses: the WAL may still have room for a few.
      let refusal: Awaited<ReturnType<typeof rawRequest>> | null = null;
      let acceptedWhileFull = 0;
      for (let i = 0; i < 500 && refusal === null; i++) {
        const [next] = bigChain("writes", head, 1, `full${cycle}-${i}`);
        const answer = await rawRequest(
          hub.url,
          "POST",
          "/contracts/writes/push",
          { commits: [next] },
          owner.accessSeed,
        );
        if (answer.status === 200) {
          acknowledged.push(next!.hash);
          head = next!.hash;
          acceptedWhileFull++;
        } else {
          refusal = answer;
        }
      }
      assert.ok(refusal !== null, "the store never refused a write on a full disk");
      assertStorageRefusal(refusal, "disk_full");

      const health = await timedHealth(hub.url);
      assertDegraded(health, "disk_full");

      // Anonymous reads need no write: another contract is still served.
      const read = await rawRequest(hub.url, "GET", "/contracts/bystander/state");
      assert.equal(read.status, 200);

      rmSync(filler);
      const polls = await healthBecomes(hub.url, "ok");
      const [resumed] = bigChain("writes", head, 1, `resumed${cycle}`);
      await client.push("writes", [resumed!]);
      acknowledged.push(resumed!.hash);
      cycles.push({ filledBytes: filled, acceptedWhileFull, healthMs: Math.round(health.ms), pollsToOk: polls });
    }

    // A crash after the fault: every acknowledged commit is on disk.
    await assertKeptAfterKill(hub, () => startHub(dataDir), owner, acknowledged);
    figures.diskFull = { cycles, acknowledged: acknowledged.length };
  });

  it("damaged pages: CORRUPTED naming the contract, other contracts served, /health stays ok", async () => {
    const base = mkdtempSync(join(tmpdir(), "hostile-corrupt-"));
    cleanups.push(() => rmSync(base, { recursive: true, force: true }));
    const dataDir = join(base, "data");
    let hub = await startHub(dataDir);
    await owner.register(hub.url);
    let client = owner.client(hub.url);
    const marker = `VICTIM-${rng.int(0, 1e9)}-`;
    for (const id of ["before", "victim", "after"]) {
      await client.push(id, [owner.genesis(id)]);
      const { head } = await client.getState(id);
      const tag = id === "victim" ? `${marker}${"v".repeat(6000)}` : `${id}-${"o".repeat(6000)}`;
      await client.push(id, owner.chain(id, head, LONG ? 40 : 8, tag));
    }
    // A graceful stop checkpoints the WAL into the database file.
    assert.equal(await hub.stop(), 0);
    const file = join(dataDir, "hub.sqlite");
    const bytes = readFileSync(file);
    const pageSize = bytes.readUInt16BE(16) === 1 ? 65536 : bytes.readUInt16BE(16);
    // A row of ~24 KB keeps its start on a leaf page shared with other rows and the rest on
    // overflow pages of its own, allocated in order at the end of the file. The tag's value
    // copy lies twice in the victim's last commit: in its `data` column, then in its stored
    // wire bytes. Break the link of the page holding the first of them (the state read needs it).
    const valueCopy = `"value":"${marker}`;
    const at = bytes.lastIndexOf(valueCopy, bytes.lastIndexOf(valueCopy) - 1);
    assert.ok(at > 0, "the victim's rows are not in the database file");
    const page = Math.floor(at / pageSize);
    bytes.writeUInt32BE(0xfffffff0, page * pageSize);
    writeFileSync(file, bytes);

    hub = await startHub(dataDir);
    client = owner.client(hub.url);
    const victim = await rawRequest(hub.url, "GET", "/contracts/victim/state");
    assert.equal(victim.status, 500, JSON.stringify(victim.body));
    assert.equal(victim.body.code, "CORRUPTED");
    assert.equal(victim.body.details?.contract_id, "victim");
    for (const id of ["before", "after"]) {
      assert.equal((await rawRequest(hub.url, "GET", `/contracts/${id}/state`)).status, 200, id);
    }
    const { head } = await client.getState("after");
    await client.push("after", owner.chain("after", head, 1, "still-writable"));
    const health = await timedHealth(hub.url);
    assert.equal(health.status, 200);
    try {
      await client.pull("victim");
      assert.fail("pulling a damaged log must fail");
    } catch (err) {
      assert.ok(isContractError(err, "CORRUPTED"), String(err));
    }
    figures.corrupted = { pageSize, damagedPage: page, victimStatus: victim.status, healthMs: Math.round(health.ms) };
  });
});
