/**
 * A library user checks a pulled log whose commits need a custom WASM predicate
 * (docs/engine.md, "Replay and integrity"), with the runner `contract-hub/predicates`
 * exports: the example of the docs accepts the log with it, does not decide it without one
 * (UNAVAILABLE `wasm_disabled` naming the predicate: neither false nor true), and a script
 * that closes the runner ends by itself. The hub is a real one over loopback HTTP, running its
 * own predicate pool.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { HubClient } from "../src/client/index.js";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { buildCommit, genesisData } from "../src/contract/engine.js";
import { type ClosableWasmRunner, createWasmRunner } from "../src/predicates/index.js";
import { DEFAULT_GAS_LIMIT } from "../src/predicates/wasm/WasmPredicateRunner.js";
import { createWasmRunner as hubRunner } from "../src/predicates/wasmRunner.js";
import { checkPulledLog } from "./support/checkPulledLog.js";
import { type TestApp, testApp } from "./support/testApps.js";
import { base64, predicateModules } from "./support/wasmModules.js";

const MODEL = `model Guarded {
  initial ready
  ready -> used [+USE +okarg("ok")]
  used -> used [+USE +okarg("ok")]
}`;
const ID = "guarded";

let t: TestApp;
let hubWasm: ClosableWasmRunner;
let url: string;
let client: HubClient;

before(async () => {
  hubWasm = hubRunner({ workers: 1 });
  t = await testApp("rest", { wasm: hubWasm });
  url = await t.app.listen({ port: 0, host: "127.0.0.1" });
  const { okarg } = await predicateModules();
  const genesis = buildCommit(
    ID,
    null,
    genesisData({ model: MODEL, rules: [], owner: t.owner.key, state: { "/_code/custom/okarg.wasm": base64(okarg) } }),
  );
  const use = buildCommit(ID, genesis.hash, [{ method: "action", value: "USE" }]);
  const again = buildCommit(ID, use.hash, [{ method: "action", value: "USE" }]);
  assert.equal((await t.hub.push(t.owner.caller, ID, { commits: [genesis, use, again] })).pushed, 3);
  client = new HubClient({ url, accessKey: t.owner.access.seed, retries: 0 });
});
after(async () => {
  await t?.close();
  await hubWasm?.close();
});

/** How long the user's script may run before it counts as kept alive. */
const SCRIPT_DEADLINE_MS = 60_000;

describe("checking a pulled log with custom predicates, as docs/engine.md shows", () => {
  it("accepts the log with the exported runner", async () => {
    const wasm = createWasmRunner();
    try {
      const view = await checkPulledLog(client, ID, wasm);
      assert.equal(view.current_state, "used");
      assert.equal(view.commit_count, 3);
    } finally {
      await wasm.close();
    }
  });

  it("does not decide it without a runner: UNAVAILABLE wasm_disabled naming the predicate", async () => {
    const details = await assertContractErrorAsync(
      () => checkPulledLog(client, ID, undefined),
      "UNAVAILABLE",
      "wasm_disabled",
    );
    assert.equal(details.property, '+okarg("ok")');
  });

  it("runs with the command line's limits: a module that spins is out of gas at the default budget", async () => {
    const { loop } = await predicateModules();
    const wasm = createWasmRunner({ workers: 1 });
    try {
      const commit = { hash: "00".repeat(32), parent: null, data: [], labels: [], signers: [], timestamp: 1 };
      const input = { args: [], contract_id: ID, commit, state: {} };
      const result = await wasm(loop, input);
      assert.equal(result.valid, false);
      assert.equal(result.cause, "out_of_gas");
      assert.equal(result.gas_used, DEFAULT_GAS_LIMIT);
    } finally {
      await wasm.close();
    }
  });

  it("takes workers and gasLimit only, each a positive integer: the other limits are not the user's to loosen", () => {
    for (const bad of [0, -1, 1.5, Number.NaN])
      assert.throws(() => createWasmRunner({ gasLimit: bad }), RangeError, String(bad));
    for (const bad of [0, 1.5]) assert.throws(() => createWasmRunner({ workers: bad }), RangeError, String(bad));
    for (const other of [{ timeoutMs: 60_000 }, { maxMemoryPages: 65_536 }, { maxOutputBytes: 1 }])
      assert.throws(() => createWasmRunner(other as never), TypeError, JSON.stringify(other));
  });

  /** Runs the user's script (test/pulled-log-wasm-child.ts) to its end; its exit code, signal, output. */
  async function script(...extra: string[]) {
    const file = fileURLToPath(new URL("./pulled-log-wasm-child.ts", import.meta.url));
    const seed = Buffer.from(t.owner.access.seed).toString("hex");
    const child = spawn(process.execPath, ["--import", "tsx", file, url, ID, seed, ...extra], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += String(d);
    });
    child.stderr.on("data", (d) => {
      err += String(d);
    });
    // A process kept alive by the runner never exits by itself: killed after a minute (a few
    // seconds is its usual run), it ends with SIGKILL, which the tests' assertions name,
    // instead of holding this file open with its pipes after its test failed.
    const deadline = setTimeout(() => child.kill("SIGKILL"), SCRIPT_DEADLINE_MS);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((ok) =>
      child.once("exit", (c, s) => ok([c, s])),
    );
    clearTimeout(deadline);
    return { code, signal, out, err };
  }

  it("a script that closes the runner after its check ends by itself, exit code 0", async () => {
    const run = await script();
    assert.deepEqual([run.code, run.signal], [0, null], run.err);
    assert.equal(JSON.parse(run.out).current_state, "used");
  });

  it("an idle runner does not keep a script alive either (close is for giving the threads back early)", async () => {
    const run = await script("keep");
    assert.deepEqual([run.code, run.signal], [0, null], run.err);
    assert.equal(JSON.parse(run.out).current_state, "used");
  });
});
