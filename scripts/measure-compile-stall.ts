/**
 * Measures how long `GET /health` waits while one signed `POST /contracts` of a big model
 * (a cycle of N states, default 40,000, with one rule over it) runs on a real hub process:
 * the stall a single big model can cause on the event loop. Prints one JSON line per run and
 * the load average of the machine (the figures are wall-clock times).
 * Usage: CONTRACT_HUB_SOURCE=1 node --import tsx scripts/measure-compile-stall.ts [states] [runs]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { cycleModel, HealthProbe, heavyRules } from "../test/reliability/support/hostileLoad.js";
import { Party } from "../test/reliability/support/party.js";
import { Rng } from "../test/reliability/support/seeded.js";
import { startHub } from "../test/support/hubProcess.js";

const states = Number(process.argv[2] ?? 40_000);
const runs = Number(process.argv[3] ?? 3);
const dir = mkdtempSync(join(tmpdir(), "compile-stall-"));
const hub = await startHub(dir);
try {
  const rng = new Rng(14);
  const model = cycleModel(states);
  for (let i = 0; i < runs; i++) {
    // A fresh identity each run: one identity's work budget would refuse its third attempt.
    const party = new Party(rng);
    await party.register(hub.url);
    const probe = new HealthProbe(hub.url, 5);
    await new Promise((r) => setTimeout(r, 50));
    const started = performance.now();
    const outcome = await party
      .client(hub.url)
      .createContract({ model, rules: heavyRules(1, states) })
      .then(
        () => "created",
        (err: { code?: string; details?: { reason?: string } }) => `${err.code}/${err.details?.reason}`,
      );
    const requestMs = Math.round(performance.now() - started);
    await new Promise((r) => setTimeout(r, 50));
    console.log(JSON.stringify({ states, outcome, requestMs, health: await probe.stop(), load: loadavg()[0] }));
  }
} finally {
  await hub.stop();
  rmSync(dir, { recursive: true, force: true });
}
