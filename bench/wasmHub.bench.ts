/**
 * Custom WASM predicates in use: a module's first evaluation (instrument + compile) against
 * cached ones, and commits per second through a `contract-hub start` process (REST on
 * loopback, SQLite) when every commit runs a custom predicate, against the same commits
 * guarded by an action label alone, measured in the same run.
 *
 * Run: npm run bench -- wasmHub
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { HubClient } from "../src/client/HubClient.js";
import { signedSubmitBody } from "../src/client/signedCommits.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { compileWat } from "../src/predicates/wasm/compileWat.js";
import { WasmPredicateRunner } from "../src/predicates/wasm/WasmPredicateRunner.js";
import { spawnHub } from "../test/support/hubProcess.js";
import type { Reporter } from "./Reporter.js";

const BENCH = "wasm-hub";
const CONTRACTS = 8;
const COMMITS_PER_CONTRACT = 60;
const WAT = readFileSync(new URL("../test/fixtures/wasm/predicate.wat", import.meta.url), "utf8");

const input = {
  args: ["ok"],
  contract_id: "bench",
  commit: { hash: "00".repeat(32), parent: null, data: [], labels: [], signers: [], timestamp: 0 },
  state: {},
};

export default async function wasmHubBench(r: Reporter): Promise<void> {
  await coldVersusCached(r);
  await throughTheHub(r);
}

/** N distinct modules evaluated once each (every one instrumented and compiled) vs one module N times. */
async function coldVersusCached(r: Reporter): Promise<void> {
  const n = 40;
  // The same predicate with a different unused data byte: distinct bytes, distinct cache keys.
  const distinct = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      compileWat(WAT.replace(/\)\s*$/, `(data (i32.const 3000) "${String.fromCharCode(65 + (i % 26))}${i}"))`)),
    ),
  );
  const runner = new WasmPredicateRunner({ workers: 1 });
  try {
    await runner.evaluate(distinct[0]!, input); // thread started
    let t = performance.now();
    for (const bytes of distinct.slice(1)) await runner.evaluate(bytes, input);
    const coldMs = (performance.now() - t) / (n - 1);
    t = performance.now();
    for (let i = 0; i < n * 5; i++) await runner.evaluate(distinct[1]!, input);
    const cachedMs = (performance.now() - t) / (n * 5);
    r.add({
      bench: BENCH,
      case: "first evaluation of a module (instrument + compile + run)",
      value: coldMs,
      unit: "ms",
    });
    r.add({ bench: BENCH, case: "evaluation of a cached module", value: cachedMs, unit: "ms" });
    r.add({ bench: BENCH, case: "cold / cached", value: coldMs / cachedMs, unit: "ratio" });
  } finally {
    await runner.close();
  }
}

/** Commits/s over REST when each runs a custom predicate, against a label-only guard. */
async function throughTheHub(r: Reporter): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "wasm-hub-bench-"));
  const hub = await spawnHub(["--port", "0", "--no-rpc", "--rate-limit", "0", "--data-dir", join(dir, "data")]);
  try {
    const identity = generateKeyPair();
    const access = generateKeyPair();
    const base = new HubClient({ url: hub.url, retries: 0 });
    await base.register(identity.seed, access.seed);
    const client = base.withKey(access.seed);
    const module = Buffer.from(await compileWat(WAT)).toString("base64");
    const run = async (guard: string) => {
      const model = `model Bench {\n  initial ready\n  ready -> ready [+USE${guard}]\n}`;
      const heads: [string, string][] = [];
      for (let c = 0; c < CONTRACTS; c++) {
        const { contract_id: id } = await client.createContract({
          model,
          rules: [],
          state: { "/_code/custom/okarg.wasm": module },
        });
        heads.push([id, (await client.getState(id)).head]);
      }
      const start = performance.now();
      await Promise.all(
        heads.map(async ([id, first]) => {
          let head = first;
          for (let i = 0; i < COMMITS_PER_CONTRACT; i++) {
            const res = await client.submitCommit(id, signedSubmitBody(id, head, { action: "USE" }, []));
            head = res.commit_hash;
          }
        }),
      );
      return (CONTRACTS * COMMITS_PER_CONTRACT * 1000) / (performance.now() - start);
    };
    await run(' +okarg("ok")'); // warm-up: threads started, module compiled
    const plain = await run("");
    const custom = await run(' +okarg("ok")');
    const note = `${CONTRACTS} contracts in parallel, REST, SQLite; hub and load generator share ${cpus().length} cores`;
    r.add({ bench: BENCH, case: "commits/s, label-only guard", value: plain, unit: "commits/s", note });
    r.add({
      bench: BENCH,
      case: "commits/s, custom predicate on every commit",
      value: custom,
      unit: "commits/s",
      note,
    });
    r.add({ bench: BENCH, case: "custom / label-only", value: custom / plain, unit: "ratio" });
  } finally {
    await hub.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
