/**
 * Hostile input at scale (docs/reliability.md): runs the security fuzz suites
 * (`test/**\/*fuzz*.test.ts`, fast-check properties over every route and decoder, sized by
 * `FUZZ_RUNS`) in a child test runner with a large FUZZ_RUNS, and reports how many inputs
 * they generated. No second fuzzer here. The short form leaves them to `npm test`, which
 * already runs them at their default size; the long form (`RELIABILITY=long`) runs them
 * with FUZZ_RUNS=RELIABILITY_FUZZ_RUNS (default 20,000).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { it } from "node:test";
import { fileURLToPath } from "node:url";
import { LONG } from "./support/seeded.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const RUNS = Number(process.env.RELIABILITY_FUZZ_RUNS ?? 20_000);

const fuzzFiles = ["test", "src"]
  .flatMap((dir) => readdirSync(join(ROOT, dir), { recursive: true }).map((f) => join(dir, String(f))))
  .filter((f) => /fuzz/i.test(f) && f.endsWith(".test.ts"))
  .sort();

it(`hostile input: the fuzz suites with FUZZ_RUNS=${RUNS}`, {
  skip: !LONG
    ? "short form: npm test runs the fuzz suites at their default size"
    : fuzzFiles.length === 0
      ? "no fuzz suites found"
      : false,
  timeout: 3_600_000,
}, () => {
  const started = performance.now();
  // A nested runner must not think it reports to ours (it would write v8-serialized results, not TAP).
  const env: Record<string, string | undefined> = { ...process.env, FUZZ_RUNS: String(RUNS) };
  delete env.NODE_TEST_CONTEXT;
  const run = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=1", ...fuzzFiles], {
    cwd: ROOT,
    env,
    encoding: "utf8",
    maxBuffer: 256 * 2 ** 20,
  });
  const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)`, "m").exec(run.stdout)?.[1] ?? Number.NaN);
  const figures = {
    files: fuzzFiles.length,
    fuzzRuns: RUNS,
    tests: count("tests"),
    pass: count("pass"),
    fail: count("fail"),
    // Each fuzz suite prints "fuzz: <n> generated inputs in total".
    generatedInputs: [...run.stdout.matchAll(/fuzz: (\d+) generated inputs in total/g)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    ),
    seeds: [...run.stdout.matchAll(/fuzz seed (\d+)/g)].map((m) => Number(m[1])),
    seconds: Math.round((performance.now() - started) / 1000),
  };
  console.log(`[hostile] figures ${JSON.stringify(figures)}`);
  assert.equal(
    run.status,
    0,
    run.stdout
      .split("\n")
      .filter((l) => /not ok|error|seed/i.test(l))
      .slice(0, 40)
      .join("\n"),
  );
  assert.equal(figures.fail, 0);
});
