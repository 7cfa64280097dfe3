#!/usr/bin/env node
// Finds every *.test.ts under src/ and test/ and runs them with node's test runner through tsx.
// Node 20's `--test` has no glob support, so the file list is built here.
// Usage: node scripts/run-tests.js [substring-filter ...]
// Environment: TEST_CONCURRENCY (files at once, 2), TEST_TIMEOUT_MS (a file's limit, below).
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
// A file still running after this long fails with its name ("test timed out") instead of
// holding CI until the job's own limit with no failure reported: a hang, or a hub, socket or
// timer a failed test left running. Node's runner applies it to each file as a whole (and to
// each test in it without a timeout of its own), so it sits well above the slowest file of
// the short form (docs/reliability.md, "A test that hangs"); the long form runs files that
// take longer on purpose. TEST_TIMEOUT_MS overrides it; 0 means no limit.
const defaultTimeoutMs = process.env.RELIABILITY === "long" ? 2 * 60 * 60_000 : 10 * 60_000;
const timeoutMs = process.env.TEST_TIMEOUT_MS ? Number(process.env.TEST_TIMEOUT_MS) : defaultTimeoutMs;
if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 0) {
  console.error(
    `TEST_TIMEOUT_MS must be a whole number of milliseconds, 0 for no limit: ${process.env.TEST_TIMEOUT_MS}`,
  );
  process.exit(2);
}
// Node 20.10, the oldest the package supports, has no --test-timeout (20.11 has).
const [major, minor] = process.versions.node.split(".").map(Number);
const hasTimeout = major > 20 || (major === 20 && minor >= 11);
const timeoutArgs = timeoutMs > 0 && hasTimeout ? [`--test-timeout=${timeoutMs}`] : [];
// CONTRACT_HUB_SOURCE=1: every `bin/contract-hub.js` a test spawns runs the sources, never a stale dist/.
const result = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", `--test-concurrency=${concurrency}`, ...timeoutArgs, ...files],
  { stdio: "inherit", env: { ...process.env, CONTRACT_HUB_SOURCE: "1" } },
);
process.exit(result.status ?? 1);
