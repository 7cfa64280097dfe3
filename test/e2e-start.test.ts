/** `contract-hub start`: configuration precedence, usage errors, printed addresses, serving, and a clean stop. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { registrationBody } from "../src/auth/signRequest.js";
import { ConfigError, loadStartConfig } from "../src/cli/config.js";
import { EXIT_OK, EXIT_USAGE } from "../src/cli/Io.js";
import { startCommand } from "../src/cli/startCommand.js";
import { generateKeyPair } from "../src/contract/keys.js";

test("flags win over HUB_* variables, which win over defaults; bad values are usage errors", () => {
  const c = loadStartConfig({ port: "0" }, { HUB_PORT: "9000", HUB_RPC_PORT: "9001", HUB_HOST: "0.0.0.0" });
  assert.deepEqual(
    [c.port, c.rpcPort, c.host, c.rpc, c.rateLimit, c.databaseUrl],
    [0, 9001, "0.0.0.0", true, 500, null],
  );
  assert.equal(loadStartConfig({ rpc: false }, {}).rpc, false);
  assert.equal(loadStartConfig({}, {}).port, 8080);
  assert.equal(loadStartConfig({}, {}).snapshotEvery, 1000);
  assert.equal(loadStartConfig({}, { HUB_SNAPSHOT_EVERY: "0" }).snapshotEvery, 0);
  const hostile = loadStartConfig({}, {});
  assert.deepEqual([hostile.workBudget, hostile.anonymousSockets, hostile.checkBudget], [5000, 100, 100_000_000]);
  assert.equal(loadStartConfig({ checkBudget: "5000" }, { HUB_CHECK_BUDGET: "7" }).checkBudget, 5000);
  assert.equal(loadStartConfig({}, { HUB_CHECK_BUDGET: "7" }).checkBudget, 7);
  assert.equal(loadStartConfig({}, { HUB_WORK_BUDGET: "0" }).workBudget, 0);
  assert.equal(loadStartConfig({}, { HUB_ANONYMOUS_SOCKETS: "3" }).anonymousSockets, 3);
  assert.equal(hostile.registrationLimit, 20);
  assert.equal(loadStartConfig({}, { HUB_REGISTRATION_LIMIT: "0" }).registrationLimit, 0);
  assert.equal(loadStartConfig({ registrationLimit: "5" }, { HUB_REGISTRATION_LIMIT: "0" }).registrationLimit, 5);
  assert.deepEqual([hostile.headersTimeoutMs, hostile.requestTimeoutMs], [10_000, 60_000]);
  const slowLinks = loadStartConfig({ requestTimeout: "600000" }, { HUB_HEADERS_TIMEOUT: "20000" });
  assert.deepEqual([slowLinks.headersTimeoutMs, slowLinks.requestTimeoutMs], [20_000, 600_000]);
  for (const [flags, env] of [
    [{ port: "70000" }, {}],
    [{ port: "-1" }, {}],
    [{}, { HUB_RPC_PORT: "abc" }],
    [{ databaseUrl: "mysql://x" }, {}],
    [{ rateLimit: "1.5" }, {}],
    [{ snapshotEvery: "-5" }, {}],
    [{ checkBudget: "0" }, {}],
    [{}, { HUB_CHECK_BUDGET: "1e8" }],
    [{ requestTimeout: "0" }, {}],
    [{}, { HUB_HEADERS_TIMEOUT: "10s" }],
    [{ registrationLimit: "-1" }, {}],
    [{}, { HUB_REGISTRATION_LIMIT: "twenty" }],
  ] as const) {
    assert.throws(() => loadStartConfig(flags, env), ConfigError);
  }
  // A bad value names where it came from: the variable only when the variable supplied it.
  assert.throws(
    () => loadStartConfig({ port: "abc" }, {}),
    (e: Error) => !e.message.includes("HUB_PORT"),
  );
  assert.throws(
    () => loadStartConfig({}, { HUB_PORT: "abc" }),
    (e: Error) => e.message.includes("HUB_PORT"),
  );
});

test("start prints its bound addresses, serves both ports, and stops cleanly", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "hub-start-"));
  const out: string[] = [];
  const io = { out: (s: string) => void out.push(s), err: () => {} };
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const env = { HUB_LOG_LEVEL: "silent", HUB_REGISTRATION_LIMIT: "1" };
  const running = startCommand({ port: "0", rpcPort: "0", dataDir: dir }, io, { version: "0.1.0", env, stop: stopped });
  // Whatever assertion fails below, the hub stops and the file ends: a hub left serving kept
  // this test process (and CI) running with no failure reported.
  t.after(async () => {
    stop();
    await running.catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });
  for (let i = 0; out.length < 3; i++) {
    if (i > 1000) assert.fail("start printed no addresses");
    await new Promise((r) => setTimeout(r, 10));
  }
  const rest = /REST\s+(\S+)/.exec(out.join("\n"))?.[1];
  const rpc = /JSON-RPC\s+(\S+)/.exec(out.join("\n"))?.[1];
  assert.ok(rest && rpc);
  assert.equal(((await (await fetch(`${rest}/health`)).json()) as { status: string }).status, "ok");
  const r = await fetch(`${rpc}/`, {
    method: "POST",
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "getVersion" }),
  });
  assert.deepEqual(await r.json(), { jsonrpc: "2.0", id: 7, result: "0.1.0" });
  // HUB_REGISTRATION_LIMIT reaches the served ports: one new identity from this address, then 429.
  const register = () =>
    fetch(`${rest}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(registrationBody(generateKeyPair().seed, generateKeyPair().seed)),
    });
  const accepted = await register();
  const refused = await register();
  const reason = ((await refused.json()) as { details: { reason: string } }).details.reason;
  assert.deepEqual([accepted.status, refused.status, reason], [201, 429, "registration_limit"]);
  stop();
  assert.equal(await running, EXIT_OK);
  await assert.rejects(fetch(`${rest}/health`));
});

test("an invalid flag exits with the usage code before opening anything", async () => {
  const io = { out: () => {}, err: () => {} };
  assert.equal(await startCommand({ port: "x" }, io, { version: "0.1.0", env: {} }), EXIT_USAGE);
});
