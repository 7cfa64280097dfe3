/**
 * Crash battery (docs/reliability.md): writers push signed commits over HTTP to a real hub
 * process, which is SIGKILLed at a seeded random moment, fsck'ed with `verify --data-dir`
 * while down, restarted on the same files and read back. Jepsen set semantics: no
 * acknowledged commit lost, nothing stored that was refused or never sent, every in-flight
 * push wholly present or wholly absent, every log one chain. Short form 3 rounds, long form
 * (`RELIABILITY=long`) 50.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import { type HubProcess, killAllHubs, startHub } from "../support/hubProcess.js";
import { Party } from "./support/party.js";
import { readBack } from "./support/readBack.js";
import { harnessSeed, LONG, percentile, Rng } from "./support/seeded.js";
import { type Attempt, checkSet } from "./support/setChecker.js";
import { verifyDataDir } from "./support/verifyDataDir.js";
import { writerLoop } from "./support/writerLoop.js";

const ROUNDS = LONG ? 50 : 3;
const WRITERS = LONG ? 8 : 4;
const SHARED = "shared";

const seed = harnessSeed("crash");
const rng = new Rng(seed);
const base = mkdtempSync(join(tmpdir(), "rel-crash-"));
after(async () => {
  await killAllHubs();
  rmSync(base, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it(`kill -9 of the hub under ${WRITERS} writers, ${ROUNDS} rounds: nothing acknowledged is lost`, {
  timeout: 900_000,
}, async () => {
  const dataDir = join(base, "data");
  let hub: HubProcess = await startHub(dataDir);
  const parties = Array.from({ length: WRITERS }, () => new Party(rng));
  const writerRngs = parties.map(() => rng.fork());
  const own = parties.map((_, i) => `own-${i}`);
  const history: Attempt[] = [];
  const violations: string[] = [];

  for (const p of parties) await p.register(hub.url);
  const owner = parties[0]!.client(hub.url);
  for (const [i, p] of parties.entries()) {
    const g = p.genesis(own[i]!);
    await p.client(hub.url).push(own[i]!, [g]);
    history.push({ contract: own[i]!, hashes: [g.hash], outcome: "ok" });
  }
  const g = parties[0]!.genesis(SHARED);
  await owner.push(SHARED, [g]);
  history.push({ contract: SHARED, hashes: [g.hash], outcome: "ok" });
  for (const p of parties.slice(1)) await owner.grant(SHARED, p.identity, "writer");

  const ready: number[] = [];
  let verified = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const killAfter = rng.int(150, 1500);
    let stop = false;
    const loops = parties.map((party, i) =>
      writerLoop({
        party,
        client: party.client(hub.url, hub.rpcUrl),
        rng: writerRngs[i]!,
        own: own[i]!,
        shared: SHARED,
        tag: `r${round}w${i}`,
        history,
        violations,
        shouldStop: () => stop,
      }),
    );
    await sleep(killAfter);
    await hub.kill();
    stop = true;
    await Promise.all(loops);

    // fsck the crashed files before the hub reopens them.
    const { code, doc } = await verifyDataDir(dataDir);
    const damaged = doc.contracts.filter((c) => !c.ok);
    assert.deepEqual(damaged, [], `round ${round}: verify found damage (seed ${seed})`);
    assert.equal(code, 0);
    verified += doc.checked;

    hub = await startHub(dataDir);
    ready.push(hub.readyMs);
    const { stored, problems } = await readBack(parties[0]!.client(hub.url), [...own, SHARED]);
    assert.deepEqual(problems, [], `round ${round}: broken chains (seed ${seed})`);
    const report = checkSet(history, stored);
    assert.deepEqual(
      [report.lost, report.unexpected, report.refusedButStored, report.torn],
      [0, 0, 0, 0],
      `round ${round} (kill after ${killAfter} ms): ${JSON.stringify(report)} (seed ${seed})`,
    );
    assert.deepEqual(violations, [], `round ${round}: unexpected errors (seed ${seed})`);
  }
  const { stored } = await readBack(parties[0]!.client(hub.url), [...own, SHARED]);
  await hub.stop();
  const report = checkSet(history, stored);
  const figures = {
    seed,
    rounds: ROUNDS,
    kills: ROUNDS,
    writers: WRITERS,
    attempts: history.length,
    ...report,
    refused409: history.filter((a) => a.outcome === "fail").length,
    brokenChains: 0,
    contractsVerified: verified,
    restartToReadyMsP50: Math.round(percentile(ready, 50)),
    restartToReadyMsP99: Math.round(percentile(ready, 99)),
  };
  console.log(`[crash] figures ${JSON.stringify(figures)}`);
  assert.ok(report.acked > ROUNDS, "the writers got acknowledgements");
});
