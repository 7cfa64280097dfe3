/**
 * Custom WASM predicates through a real `contract-hub start` process on SQLite: on by
 * default, deployed at genesis or by a commit, accepted and refused over REST, JSON-RPC
 * over HTTP and JSON-RPC over WebSocket, and each hostile kind of module refused within
 * the wall-clock backstop while /health and other contracts' commits go on.
 *
 * The hub runs with a gas limit so large that the looping module meets the wall-clock
 * backstop rather than its gas: that is the case where a module really holds a thread.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { signRequest } from "../src/auth/signRequest.js";
import { HubClient } from "../src/client/HubClient.js";
import type { HubSocket } from "../src/client/HubSocket.js";
import { signedSubmitBody } from "../src/client/signedCommits.js";
import { ContractError } from "../src/contract/ContractError.js";
import { generateKeyPair, type RawKeyPair } from "../src/contract/keys.js";
import type { SubmitCommitResult } from "../src/hub/HubApi.js";
import { MAX_FUNCTIONS } from "../src/predicates/wasm/parseModule.js";
import { type HubProcess, spawnHub } from "./support/hubProcess.js";
import { manyFunctions } from "./support/manyFunctions.js";
import { base64, customFailure, type PredicateModules, predicateModules } from "./support/wasmModules.js";

/** A model whose transitions use custom predicates; `extra` adds transitions from `ready`. */
export function customModel(extra = ""): string {
  return `model Custom {
  initial ready
  ready -> ready [+INSTALL +modifies(/_code) +signed_by(/users/owner.id)]
  ready -> ready [+USE +okarg("ok")]
  ready -> ready [+DENY +okarg("no")]
  ${extra}
}`;
}
const CUSTOM_MODEL = customModel();

/** The wall-clock backstop of one evaluation (the hub's default). */
const BACKSTOP_MS = 1000;

interface Owner {
  identity: RawKeyPair;
  client: HubClient;
  key: string;
}

type Call = (method: string, params: Record<string, unknown>) => Promise<unknown>;

async function refusal(p: Promise<unknown>, code: string): Promise<ContractError> {
  try {
    await p;
  } catch (err) {
    assert.equal((err as ContractError).code, code, (err as Error).message);
    return err as ContractError;
  }
  assert.fail(`expected ${code}, the call succeeded`);
}

let dir: string;
let hub: HubProcess;
let rest: HubClient;
let owner: Owner;
let modules: PredicateModules;
const sockets: HubSocket[] = [];

async function register(client: HubClient): Promise<Owner> {
  const identity = generateKeyPair();
  const access = generateKeyPair();
  await client.register(identity.seed, access.seed);
  return { identity, client: client.withKey(access.seed), key: identity.publicKey.toString("hex") };
}

/** Genesis state that deploys every module, and the owner key. */
function genesisState(): Record<string, unknown> {
  const state: Record<string, unknown> = { "/users/owner.id": owner.key };
  for (const [name, bytes] of Object.entries(modules)) state[`/_code/custom/${name}.wasm`] = base64(bytes);
  return state;
}

/** Submits an action commit (signed by the owner when `signed`) on the contract's head. */
async function submit(call: Call, id: string, body: Record<string, unknown>, signed = false) {
  const { head } = (await call("getContractState", { contract_id: id })) as { head: string };
  const signers = signed ? [{ key: owner.identity.seed, as: "/users/owner.id" }] : [];
  const signedBody = signedSubmitBody(id, head, body, signers) as Record<string, unknown>;
  return (await call("submitCommit", signedBody)) as SubmitCommitResult;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "wasm-hub-"));
  modules = await predicateModules();
  hub = await spawnHub([
    ...["--port", "0", "--rpc-port", "0", "--rate-limit", "0", "--data-dir", join(dir, "data")],
    ...["--wasm-gas-limit", "1000000000000"],
  ]);
  rest = new HubClient({ url: hub.url, rpcUrl: hub.rpcUrl!, retries: 0 });
  owner = await register(rest);
});

after(async () => {
  for (const s of sockets) s.close();
  await hub?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The three transports, each calling as the owner by JSON-RPC method name. */
async function transports(): Promise<{ name: string; call: Call }[]> {
  const c = owner.client;
  // JSON-RPC over /ws on the REST port, authenticated with the owner's access key.
  const ws = await c.connect();
  sockets.push(ws);
  const viaRest: Call = (m, p) => {
    const id = p.contract_id as string;
    if (m === "createContract") return c.createContract(p);
    if (m === "getContractState") return c.getState(id);
    if (m === "submitCommit") return c.submitCommit(id, p);
    throw new Error(`no REST mapping for ${m}`);
  };
  return [
    { name: "REST", call: viaRest },
    { name: "JSON-RPC", call: (m, p) => c.rpc(m, p) },
    { name: "WebSocket", call: (m, p) => ws.call(m, p) },
  ];
}

describe("custom predicates in a served hub (SQLite)", () => {
  it("are on by default, and start says so", () => {
    assert.match(hub.output(), /^WASM\s+custom predicates on, \d+ worker thread\(s\)/m);
  });

  it("accept and refuse over REST, JSON-RPC and WebSocket, with the module's errors and gas", async () => {
    for (const t of await transports()) {
      const { contract_id: id } = (await t.call("createContract", {
        model: CUSTOM_MODEL,
        rules: [],
        state: genesisState(),
      })) as { contract_id: string };
      const used = await submit(t.call, id, { action: "USE" });
      assert.equal(used.new_state.current_state, "ready", t.name);
      const err = await refusal(submit(t.call, id, { action: "DENY" }), "VALIDATION_FAILED");
      assert.equal(err.details?.reason, "no_transition", t.name);
      const failed = customFailure(err, '+okarg("no")');
      assert.deepEqual(failed.errors, ["arg is not ok"], t.name);
      assert.ok((failed.gas_used ?? 0) > 0, `${t.name}: gas_used ${failed.gas_used}`);
    }
  });

  it("deploys a module by a commit covering /_code with +modifies", async () => {
    const { contract_id: id } = await owner.client.createContract({
      model: CUSTOM_MODEL,
      rules: [],
      state: { "/users/owner.id": owner.key },
    });
    const call: Call = (m, p) => owner.client.rpc(m, p);
    const before = await refusal(submit(call, id, { action: "USE" }), "VALIDATION_FAILED");
    assert.deepEqual(customFailure(before, '+okarg("ok")').errors, ["no predicate module at /_code/custom/okarg.wasm"]);
    await submit(
      call,
      id,
      { method: "post", path: "/_code/custom/okarg.wasm", value: base64(modules.okarg), action_labels: ["INSTALL"] },
      true,
    );
    const used = await submit(call, id, { action: "USE" });
    assert.equal(used.index, 2);
  });

  it("never accepts a commit on a module the backstop stopped: 503 predicate_unfinished on REST and JSON-RPC", async () => {
    const c = owner.client;
    const model = customModel("ready -> ready [+GO -loop(1)]");
    const { contract_id: id } = await c.createContract({ model, rules: [], state: genesisState() });
    const viaRest: Call = (m, p) => (m === "submitCommit" ? c.submitCommit(id, p) : c.getState(id));
    for (const [name, call] of [
      ["REST", viaRest],
      ["JSON-RPC", (m, p) => c.rpc(m, p)],
    ] as [string, Call][]) {
      const err = await refusal(submit(call, id, { action: "GO" }), "UNAVAILABLE");
      assert.deepEqual(
        { reason: err.details?.reason, property: err.details?.property, cause: err.details?.cause },
        { reason: "predicate_unfinished", property: "-loop(1)", cause: "timeout" },
        name,
      );
    }
    assert.equal((await c.getState(id)).commit_count, 1, "nothing stored");
  });

  it("refuses over REST with 422 invalid_module (function count) a commit running a module over the function limit, and accepts one at the limit", async () => {
    // A client of its own, to read the HTTP status of the raw POST.
    const access = generateKeyPair();
    await rest.register(generateKeyPair().seed, access.seed);
    const c = rest.withKey(access.seed);
    // A module is data until a transition runs it (a commit's predicates read the state before
    // it), so the over-limit module is deployed at genesis and refused by the commit using it.
    const model = customModel(
      "ready -> ready [+DEPLOY +modifies(/_code/custom/many.wasm)]\n  ready -> ready [+MANY +many(1)]",
    );
    const state = { ...genesisState(), "/_code/custom/many.wasm": base64(manyFunctions(MAX_FUNCTIONS + 1)) };
    const { contract_id: id } = await c.createContract({ model, rules: [], state });
    const send = async (op: Record<string, unknown>) => {
      const { head } = await c.getState(id);
      const path = `/contracts/${id}/commits`;
      const body = JSON.stringify({ contract_id: id, ...signedSubmitBody(id, head, op, []) });
      const headers = {
        "content-type": "application/json",
        ...signRequest(access.seed, { method: "POST", url: path, body }),
      };
      const res = await fetch(hub.url + path, { method: "POST", headers, body });
      return { status: res.status, body: (await res.json()) as { details?: Record<string, unknown> } };
    };
    const over = await send({ action: "MANY" });
    assert.equal(over.status, 422);
    assert.equal(over.body.details?.reason, "no_transition");
    const failed = customFailure(new ContractError("VALIDATION_FAILED", "", over.body.details), "+many(1)");
    assert.match(failed.errors?.[0] ?? "", /^invalid_module: function count: .* the limit is 10000$/);
    assert.equal(failed.gas_used, 0);
    assert.equal((await c.getState(id)).commit_count, 1, "nothing stored");
    const module = base64(manyFunctions(MAX_FUNCTIONS));
    const deploy = await send({
      method: "post",
      path: "/_code/custom/many.wasm",
      value: module,
      action_labels: ["DEPLOY"],
    });
    assert.equal(deploy.status, 201, JSON.stringify(deploy.body));
    const atLimit = await send({ action: "MANY" });
    assert.equal(atLimit.status, 201, JSON.stringify(atLimit.body).slice(0, 500));
    assert.equal((await c.getState(id)).commit_count, 3);
  });

  const hostile: [action: string, property: string, cause: RegExp][] = [
    ["LOOP", "+loop(1)", /^timeout: /],
    ["GROW", "+grow(1)", /^trap: /],
    ["RECURSE", "+recurse(1)", /^trap: call depth limit exceeded/],
    ["BAD", "+bad(1)", /^bad_output: /],
    ["TRAP", "+trap(1)", /^trap: /],
  ];
  for (const [action, property, cause] of hostile) {
    it(`refuses ${property} within the backstop while /health and other contracts go on`, async (t) => {
      const c = owner.client;
      // A rejection explains every candidate transition, running its custom predicates: the
      // hostile transition has a contract of its own, so only its module is in play.
      const model = customModel(`ready -> ready [+${action} ${property}]`);
      const { contract_id: victim } = await c.createContract({ model, rules: [], state: genesisState() });
      const { contract_id: other } = await c.createContract({ model: CUSTOM_MODEL, rules: [], state: genesisState() });
      const call: Call = (m, p) => c.rpc(m, p);
      const started = performance.now();
      let settled = false;
      const hostileCommit = refusal(submit(call, victim, { action }), "VALIDATION_FAILED").finally(() => {
        settled = true;
      });
      // While the module runs: /health probes, and another contract's custom predicate.
      let slowestHealth = 0;
      let probes = 0;
      let otherCommits = 0;
      while (!settled) {
        const t0 = performance.now();
        assert.equal((await rest.health()).status, "ok");
        slowestHealth = Math.max(slowestHealth, performance.now() - t0);
        probes++;
        if (probes % 5 === 1) {
          await submit(call, other, { action: "USE" });
          otherCommits++;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      const err = await hostileCommit;
      const elapsed = performance.now() - started;
      const failed = customFailure(err, property);
      assert.match(failed.errors?.[0] ?? "", cause);
      t.diagnostic(
        `${property}: refused in ${elapsed.toFixed(0)} ms (${failed.errors?.[0]}), gas ${failed.gas_used}; ` +
          `${probes} /health probes, slowest ${slowestHealth.toFixed(1)} ms; ${otherCommits} other commits`,
      );
      // Generous bounds on a shared machine: the backstop plus slack, and /health within 1 s.
      assert.ok(elapsed < BACKSTOP_MS + 9000, `refused after ${elapsed.toFixed(0)} ms`);
      assert.ok(slowestHealth <= 1000, `/health took ${slowestHealth.toFixed(0)} ms`);
    });
  }
});
