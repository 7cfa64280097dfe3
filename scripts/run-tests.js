#!/usr/bin/env node
// Finds every *.test.ts under src/ and test/ and runs them with node's test runner through tsx.
// Node 20's `--test` has no glob support, so the file list is built here.
// Usage: node scripts/run-tests.js [substring-filter ...]
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const roots = ["src", "test"];
const filters = process.argv.slice(2);
const files = roots
  .flatMap((root) => readdirSync(root, { recursive: true }).map((f) => join(root, String(f))))
  .filter((f) => f.endsWith(".test.ts"))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();

if (files.length === 0) {
  console.error("No test files matched.");
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? "2";
// CONTRACT_HUB_SOURCE=1: every `bin/contract-hub.js` a test spawns runs the sources, never a stale dist/.
const result = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", `--test-concurrency=${concurrency}`, ...files],
  { stdio: "inherit", env: { ...process.env, CONTRACT_HUB_SOURCE: "1" } },
);
process.exit(result.status ?? 1);
