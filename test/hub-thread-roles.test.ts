/**
 * The hub's worker threads name their role and Linux thread id when HUB_THREAD_ROLES_FILE is
 * set (src/lib/threadRoles.ts): what the hub bench splits the hub's CPU time by
 * (docs/benchmarks.md). A hub started in this process, as `contract-hub start` runs it.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { startCommand } from "../src/cli/startCommand.js";
import { HubClient } from "../src/client/HubClient.js";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import { genesisData } from "../src/contract/engine.js";
import { generateKeyPair, privateKeyFromSeed } from "../src/contract/keys.js";
import { WorkerPool } from "../src/hub/heavy/WorkerPool.js";
import { readThreadRoles, THREAD_ROLES_ENV } from "../src/lib/threadRoles.js";
import { compileWat } from "../src/predicates/wasm/compileWat.js";
import { instrumentOffThread } from "../src/predicates/wasm/instrumentOffThread.js";
import { WasmPredicateRunner } from "../src/predicates/wasm/WasmPredicateRunner.js";

const dir = mkdtempSync(join(tmpdir(), "hub-thread-roles-"));
const file = join(dir, "threads.jsonl");
// Workers copy the environment when they start: set before this file starts any.
process.env[THREAD_ROLES_ENV] = file;
let stop: (() => void) | undefined;
let exited: Promise<number> | undefined;
after(async () => {
  stop?.();
  await exited;
  delete process.env[THREAD_ROLES_ENV];
  rmSync(dir, { recursive: true, force: true });
});

const MODEL = `model Loop {
  initial idle
  idle -> busy [+DEPOSIT +signed_by(/users/buyer.id)]
  busy -> idle [+RELEASE +signed_by(/users/buyer.id)]
}`;

test("a started hub's writer and verification threads name themselves, threads of this process", {
  skip: process.platform !== "linux",
}, async () => {
  const out: string[] = [];
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  exited = startCommand(
    { port: "0", rpc: false, wasm: false, dataDir: dir },
    { out: (s) => void out.push(s), err: () => undefined },
    { version: "0.0.0-test", env: { HUB_LOG_LEVEL: "silent" }, stop: stopped },
  );
  for (let waited = 0; !out.some((l) => l.startsWith("REST ")); waited += 10) {
    if (waited > 60_000) assert.fail("the hub did not print its address");
    await new Promise((r) => setTimeout(r, 10));
  }
  const url = /REST\s+(\S+)/.exec(out.join("\n"))![1]!;
  const identity = generateKeyPair();
  const access = generateKeyPair();
  const anonymous = new HubClient({ url, retries: 0 });
  await anonymous.register(identity.seed, access.seed);
  const client = anonymous.withKey(access.seed);
  const key = identity.publicKey.toString("hex");
  const id = "c_thread_roles";
  const g = buildWireCommit(
    id,
    null,
    genesisData({ model: MODEL, rules: [], owner: `ed25519:${key}`, state: { "/users/buyer.id": key } }),
  );
  const signer = [{ key: privateKeyFromSeed(identity.seed), as: "/users/buyer.id" }];
  const first = buildWireCommit(id, g.hash, [{ method: "action", value: "DEPOSIT" }], signer);
  const second = buildWireCommit(id, first.hash, [{ method: "action", value: "RELEASE" }], signer);
  // A push's signatures are verified on the verification threads; its rows stored by the writer.
  assert.equal((await client.push(id, [g, first, second])).pushed, 3);

  const roles = readThreadRoles(file);
  const threads = readdirSync("/proc/self/task").map(Number);
  assert.equal(roles.get("writer")?.length, 1);
  assert.ok((roles.get("verify")?.length ?? 0) >= 1);
  for (const tid of [...roles.get("writer")!, ...roles.get("verify")!]) {
    assert.notEqual(tid, process.pid, "a worker's own thread, not the event loop's");
    assert.ok(threads.includes(tid), `thread ${tid} is one of this process's`);
  }
});

test("the other workers name themselves: the heavy-work pool, the WASM predicate and instrumenting threads", {
  skip: process.platform !== "linux",
}, async () => {
  const pool = new WorkerPool(undefined, 1);
  const wasm = new WasmPredicateRunner({ workers: 1 });
  try {
    const model = "model M {\n  initial a\n  a -> b [+GO]\n}";
    await pool.run("checkRules", {
      model,
      rules: [{ text: "<+GO>b", path: null, anchorIndex: 0, anchors: [0] }],
      budget: 1_000,
      total: 1_000,
    });
    const predicate = await compileWat(readFileSync(new URL("./fixtures/wasm/predicate.wat", import.meta.url), "utf8"));
    const input = {
      args: ["ok"],
      contract_id: "c",
      commit: { hash: "00".repeat(32), parent: null, data: [], labels: [], signers: [], timestamp: 0 },
      state: {},
    };
    assert.equal((await wasm.evaluate(predicate, input)).valid, true);
    assert.equal((await instrumentOffThread(predicate, 1)).ok, true);
    const roles = readThreadRoles(file);
    const threads = readdirSync("/proc/self/task").map(Number);
    for (const role of ["heavy", "wasm", "instrument"]) {
      const tids = roles.get(role) ?? [];
      assert.equal(tids.length, 1, role);
      assert.notEqual(tids[0], process.pid, role);
      assert.ok(threads.includes(tids[0]!), `${role} thread ${tids[0]} is one of this process's`);
    }
  } finally {
    await pool.close();
    await wasm.close();
  }
});
