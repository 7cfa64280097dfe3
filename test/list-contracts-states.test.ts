/**
 * `GET /contracts?include=state` and JSON-RPC `listContracts {include: "state"}` (docs/api.md):
 * each listed contract carries its current state, exactly what `GET /contracts/:id/state` says
 * of it at the listed head, so a list page needs one request instead of one per row. Without
 * `include` the rows are as before; another value is 400 `bad_query` naming `include`; a private
 * contract's state reaches only those who may read it. States the hub must load (cold contracts)
 * are paid for by the caller's work budget; states in memory are not.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { signRequest } from "../src/auth/signRequest.js";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { buildRpcApp } from "../src/http/buildRpcApp.js";
import type { Caller } from "../src/hub/HubApi.js";
import { HeavyWork, workKey } from "../src/hub/heavy/HeavyWork.js";
import { Actor, cleanup, openHub, tempDir } from "./hub-fixtures.js";
import { type Principal, type TestApp, testApp } from "./support/testApps.js";

const MODEL = "model M {\n  initial a\n  a -> b [+GO]\n  b -> b []\n}";
const ROW_KEYS = ["commit_count", "contract_id", "created_at", "head", "owner", "private"];

interface Row {
  contract_id: string;
  head: string;
  state?: { current_state: string; current_states: string[] } | null;
}

let t: TestApp;
let rpcApp: FastifyInstance;
let reader: Principal;
let stranger: Principal;
let moved: string;
let fresh: string;
let hidden: string;

before(async () => {
  t = await testApp();
  rpcApp = await buildRpcApp(t.options);
  await rpcApp.ready();
  reader = await t.principal();
  stranger = await t.principal();
  moved = (await t.contract({ model: MODEL, rules: [] })).id;
  await t.hub.submitCommit(t.owner.caller, moved, { contract_id: moved, method: "action", value: "GO" });
  fresh = (await t.contract({ model: MODEL, rules: [] })).id;
  hidden = (await t.contract({ model: MODEL, rules: [], readers: [reader.key] })).id;
});
after(async () => {
  await rpcApp.close();
  await t.close();
});

const json = (res: { body: string }) => JSON.parse(res.body) as Record<string, unknown>;

/** `GET url` signed by `as`, or anonymous. */
async function rest(url: string, as: Principal | null) {
  const res = as ? await t.signed({ method: "GET", url, as }) : await t.app.inject({ url });
  return { status: res.statusCode, body: json(res) };
}

async function rpc(params: Record<string, unknown>, as: Principal | null) {
  const raw = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "listContracts", params });
  const headers = {
    "content-type": "application/json",
    ...(as ? signRequest(as.access.seed, { method: "POST", url: "/", body: raw }) : {}),
  };
  const res = await rpcApp.inject({ method: "POST", url: "/", payload: raw, headers });
  return JSON.parse(res.body) as {
    result?: { contracts: Row[] };
    error?: { code: number; data: { details: unknown } };
  };
}

/** Every row's `state` against the caller's own `GET /contracts/:id/state` of it. */
async function assertStatesAsRead(rows: Row[], as: Principal | null) {
  for (const row of rows) {
    const { status, body } = await rest(`/contracts/${row.contract_id}/state`, as);
    assert.equal(status, 200);
    assert.equal(body.head, row.head, "the state is the listed head's");
    assert.deepEqual(row.state, { current_state: body.current_state, current_states: body.current_states });
  }
}

describe("GET /contracts?include=state", () => {
  it("gives each listed contract the current state GET /contracts/:id/state answers", async () => {
    const { status, body } = await rest("/contracts?include=state&limit=1000", t.owner);
    assert.equal(status, 200);
    const rows = body.contracts as Row[];
    assert.deepEqual(
      [moved, fresh, hidden].map((id) => rows.find((r) => r.contract_id === id)?.state?.current_state),
      ["b", "a", "a"],
    );
    await assertStatesAsRead(rows, t.owner);
    assert.equal(body.total, rows.length);
  });

  it("leaves the default list as it was: no state, the same rows", async () => {
    const plain = await rest("/contracts?limit=1000", t.owner);
    const withStates = await rest("/contracts?include=state&limit=1000", t.owner);
    const rows = plain.body.contracts as Row[];
    for (const row of rows) assert.deepEqual(Object.keys(row).sort(), ROW_KEYS);
    assert.deepEqual(
      (withStates.body.contracts as Row[]).map(({ state: _, ...row }) => row),
      rows,
    );
    assert.equal(withStates.body.total, plain.body.total);
  });

  it("refuses any other include with 400 bad_query naming include, on REST and JSON-RPC", async () => {
    for (const value of ["states", "STATE", "", "state,head"]) {
      const { status, body } = await rest(`/contracts?include=${encodeURIComponent(value)}`, null);
      assert.equal(status, 400, value);
      assert.equal(body.code, "INVALID_REQUEST");
      assert.deepEqual(body.details, { reason: "bad_query", field: "include" });
      const viaRpc = await rpc({ include: value }, null);
      assert.equal(viaRpc.error?.code, -32602);
      assert.deepEqual(viaRpc.error?.data.details, { reason: "bad_query", field: "include" });
    }
  });

  it("shows a private contract's state to its readers only; others do not see the contract at all", async () => {
    for (const as of [t.owner, reader]) {
      const rows = (await rest("/contracts?include=state&limit=1000", as)).body.contracts as Row[];
      const row = rows.find((r) => r.contract_id === hidden);
      assert.ok(row, "listed to whoever may read it");
      await assertStatesAsRead([row], as);
    }
    for (const as of [stranger, null]) {
      const { body } = await rest("/contracts?include=state&limit=1000", as);
      const rows = body.contracts as Row[];
      assert.deepEqual(
        rows.filter((r) => r.contract_id === hidden),
        [],
      );
      assert.ok(!JSON.stringify(body).includes(hidden));
      await assertStatesAsRead(rows, as);
    }
  });

  it("answers JSON-RPC listContracts {include: state} with the REST body", async () => {
    for (const as of [t.owner, reader, null]) {
      const viaRest = (await rest("/contracts?include=state&limit=1000", as)).body;
      const viaRpc = await rpc({ include: "state", limit: 1000 }, as);
      assert.deepEqual(viaRpc.result, viaRest);
    }
  });
});

describe("listContracts include=state: the work budget", () => {
  after(cleanup);

  it("charges loading cold states to the caller and refuses a caller out of allowance; states in memory are free", async () => {
    const dir = tempDir();
    const owner = new Actor("owner");
    const setup = await openHub(dir);
    const ids: string[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const { contract_id } = await setup.createContract(owner.caller, { model: MODEL, rules: [] });
        ids.push(contract_id);
      }
    } finally {
      await setup.close();
    }
    // A hub started afresh over the same store holds no state in memory: each one is loaded.
    const work = new HeavyWork({ workBudgetMs: 5_000, now: () => 1_000_000 });
    const hub = await openHub(dir, { work });
    try {
      const spent: Caller = { identity: null, accessKey: null, address: "10.1.2.3" };
      const payer: Caller = { identity: null, accessKey: null, address: "10.1.2.4" };
      work.budget.charge(workKey(spent), 6_000);
      await assertContractErrorAsync(
        () => hub.listContracts(spent, { include: "state" }),
        "RATE_LIMITED",
        "work_budget",
      );
      assert.equal((await hub.listContracts(spent, {})).total, 3, "the list without states is not refused");

      const listed = await hub.listContracts(payer, { include: "state" });
      assert.deepEqual(
        (listed.contracts as Row[]).map((r) => r.state?.current_state),
        ["a", "a", "a"],
      );
      assert.ok(work.budget.remaining(workKey(payer)) < 5_000, "the cold loads were charged to the lister");

      // Now in memory: the caller out of allowance gets them.
      const again = await hub.listContracts(spent, { include: "state" });
      assert.deepEqual(again, listed);
    } finally {
      await hub.close();
    }
  });
});
