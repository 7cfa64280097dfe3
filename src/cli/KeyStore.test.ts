import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { Worker } from "node:worker_threads";

const ROUNDS = 40;
const WORKERS = 4;

// Each worker makes key `k<round>` the moment the round opens, all of them at once.
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
import(workerData.tsx).then((m) => { m.register(); return import(workerData.module); }).then(({ KeyStore }) => {
  const gate = new Int32Array(workerData.gate);
  const store = new KeyStore(workerData.dir);
  parentPort.postMessage("ready");
  for (let round = 0; round < workerData.rounds; round++) {
    Atomics.wait(gate, 0, round);
    try {
      parentPort.postMessage({ round, made: store.generate("k" + round).publicKey });
    } catch (err) {
      parentPort.postMessage({ round, code: err.code, reason: err.details && err.details.reason });
    }
  }
});
`;

interface Outcome {
  round: number;
  made?: string;
  code?: string;
  reason?: string;
}

describe("KeyStore.generate", () => {
  test("of one name at once, in several threads: one key is made, the others are refused key_exists", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keystore-race-"));
    const gate = new SharedArrayBuffer(4);
    const outcomes: Outcome[] = [];
    // The module as the tests run it, from its TypeScript source (as src/lib/startWorker.ts does).
    const module = new URL("./KeyStore.ts", import.meta.url).href;
    const tsx = import.meta.resolve("tsx/esm/api");
    const workers = Array.from(
      { length: WORKERS },
      () => new Worker(WORKER, { eval: true, workerData: { tsx, module, dir, gate, rounds: ROUNDS } }),
    );
    try {
      let ready = 0;
      let failed: unknown = null;
      for (const w of workers) w.on("error", (err) => (failed = err));
      const until = async (n: number) => {
        while (ready + outcomes.length < n) {
          if (failed !== null) throw failed;
          await new Promise((ok) => setTimeout(ok, 5));
        }
      };
      for (const w of workers) w.on("message", (m: "ready" | Outcome) => (m === "ready" ? ready++ : outcomes.push(m)));
      await until(WORKERS);
      for (let round = 0; round < ROUNDS; round++) {
        Atomics.store(new Int32Array(gate), 0, round + 1);
        Atomics.notify(new Int32Array(gate), 0);
        await until(WORKERS + (round + 1) * WORKERS);
      }
    } finally {
      await Promise.all(workers.map((w) => w.terminate()));
    }
    for (let round = 0; round < ROUNDS; round++) {
      const of = outcomes.filter((o) => o.round === round);
      const made = of.filter((o) => o.made !== undefined);
      assert.equal(made.length, 1, `round ${round}: ${JSON.stringify(of)}`);
      for (const o of of.filter((o) => o.made === undefined))
        assert.deepEqual([o.code, o.reason], ["CONFLICT", "key_exists"]);
      const stored = JSON.parse(readFileSync(join(dir, `k${round}.json`), "utf8")) as { public_key: string };
      assert.equal(stored.public_key, made[0]!.made, `round ${round}: the key printed is the key kept`);
    }
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.endsWith(".tmp")),
      [],
    );
  });
});
