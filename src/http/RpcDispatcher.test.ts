import assert from "node:assert/strict";
import { test } from "node:test";
import { postsAfter, type TestApp, testApp } from "../../test/support/testApps.js";
import { RPC_METHODS } from "./rpcMethods.js";

type Rpc = {
  id?: unknown;
  result?: unknown;
  error?: { code: number; data?: { code: string; details?: Record<string, unknown> } };
};

async function rpc(t: TestApp, body: unknown, signed = false): Promise<{ status: number; body: Rpc | Rpc[] | null }> {
  const raw = typeof body === "string" ? body : JSON.stringify(body);
  const res = signed
    ? await t.signed({ method: "POST", url: "/", raw })
    : await t.app.inject({ method: "POST", url: "/", payload: raw, headers: { "content-type": "application/json" } });
  return { status: res.statusCode, body: res.body === "" ? null : (JSON.parse(res.body) as Rpc | Rpc[]) };
}

const call = (method: string, params?: unknown, id: unknown = 1) => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params === undefined ? {} : { params }),
});

/** An RPC app over a real hub, closed after `fn`. */
async function withRpc(fn: (t: TestApp) => Promise<void>, options: Parameters<typeof testApp>[1] = {}) {
  const t = await testApp("rpc", options);
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

test("reads map onto the hub with params by name; results equal the REST bodies", () =>
  withRpc(async (t) => {
    const { id, head } = await t.contract();
    await t.hub.push(t.owner.caller, id, { commits: postsAfter(id, head, 3) });
    const health = await rpc(t, call("getHealth"));
    assert.deepEqual((health.body as Rpc).result, { status: "ok", version: "0.1.0" });
    assert.equal(((await rpc(t, call("getVersion"))).body as Rpc).result, "0.1.0");
    const state = (await rpc(t, call("getContractState", { contract_id: id }))).body as Rpc;
    assert.deepEqual(state.result, await t.hub.getState(t.owner.caller, id));
    const log = (await rpc(t, call("getLog", { contract_id: id, limit: 2, offset: 1 }))).body as Rpc;
    assert.deepEqual(log.result, await t.hub.getLog(t.owner.caller, id, { limit: 2, offset: 1 }));
    const pulled = (await rpc(t, call("pull", { contract_id: id, since: head }))).body as Rpc;
    assert.equal((pulled.result as { commits: { parent: string }[] }).commits[0]?.parent, head);
    assert.equal((pulled.result as { commits: unknown[] }).commits.length, 3);
    const health2 = await t.app.inject({ url: "/health" });
    assert.equal(health2.statusCode, 200);
  }));

test("protocol errors: -32700, -32600, -32601, -32602 with data.code", () =>
  withRpc(async (t) => {
    const parse = (await rpc(t, "{oops")).body as Rpc;
    assert.equal(parse.error?.code, -32700);
    assert.equal(parse.id, null);
    for (const bad of [
      call("getHealth", undefined, { x: 1 }),
      { id: 1, method: "getHealth" },
      { jsonrpc: "2.0", id: 1, method: 5 },
      7,
    ]) {
      assert.equal(((await rpc(t, bad)).body as Rpc).error?.code, -32600, JSON.stringify(bad));
    }
    const unknown = (await rpc(t, call("noSuchMethod"))).body as Rpc;
    assert.equal(unknown.error?.code, -32601);
    const proto = (await rpc(t, call("constructor"))).body as Rpc;
    assert.equal(proto.error?.code, -32601);
    const wrong = (await rpc(t, call("getContract", { contract_id: 5 }))).body as Rpc;
    assert.equal(wrong.error?.code, -32602);
    assert.equal(wrong.error?.data?.code, "INVALID_REQUEST");
    assert.equal(wrong.error?.data?.details?.field, "params/contract_id");
    const positional = (await rpc(t, call("getContract", ["abc"]))).body as Rpc;
    assert.equal(positional.error?.code, -32602);
    const missing = (await rpc(t, call("getCommit", { contract_id: "abc" }))).body as Rpc;
    assert.equal(missing.error?.data?.details?.field, "params/hash");
  }));

test("hub errors map through the table; unexpected throws are -32603 without their message", () =>
  withRpc(
    async (t) => {
      const nf = (await rpc(t, call("getContract", { contract_id: "missing" }))).body as Rpc;
      assert.equal(nf.error?.code, -32004);
      assert.equal(nf.error?.data?.code, "NOT_FOUND");
      const na = (await rpc(t, call("listTemplates"))).body as Rpc;
      assert.equal(na.error?.code, -32053);
      // A real fault: the store is gone under the hub.
      await t.hub.store.close();
      const boom = (await rpc(t, call("getContract", { contract_id: "abc" }))).body as Rpc & {
        error: { message: string };
      };
      assert.equal(boom.error.code, -32603);
      assert.equal(boom.error.message, "Internal error");
    },
    { extras: false },
  ));

test("writes need an authenticated request (-32001); signed requests reach the hub as the caller", () =>
  withRpc(async (t) => {
    const { id } = await t.contract();
    for (const m of ["createContract", "submitCommit", "push", "grant"]) {
      const params = { contract_id: id, commits: [], identity: t.owner.key, role: "reader" };
      const r = (await rpc(t, call(m, params))).body as Rpc;
      assert.equal(r.error?.code, -32001, m);
      // The reason the hub gives an unsigned write on every transport (docs/api.md).
      assert.equal(r.error?.data?.details?.reason, "unauthenticated", m);
    }
    const access = (await rpc(t, call("getAccess"))).body as Rpc;
    assert.deepEqual([access.error?.code, access.error?.data?.details?.reason], [-32001, "unauthenticated"]);
    const ok = (
      await rpc(t, call("submitCommit", { contract_id: id, method: "post", path: "/a.text", value: "v" }), true)
    ).body as Rpc;
    assert.equal((ok.result as { index: number }).index, 1);
    const created = (await rpc(t, call("createContract", { model: null, rules: [] }), true)).body as Rpc;
    const cid = (created.result as { contract_id: string }).contract_id;
    const listed = await t.hub.listContracts(t.owner.caller, {});
    const mine = listed.contracts.find((c) => (c as { contract_id: string }).contract_id === cid);
    assert.equal((mine as { owner: string }).owner, `ed25519:${t.owner.key}`);
    const badAuth = await t.app.inject({
      method: "POST",
      url: "/",
      payload: JSON.stringify(call("getHealth")),
      headers: { "x-hub-key": "00" },
    });
    assert.equal(badAuth.statusCode, 401);
    assert.equal((JSON.parse(badAuth.body) as Rpc).error?.code, -32001);
  }));

test("batches answer in order, skip notifications, and are capped", () =>
  withRpc(async (t) => {
    const out = (
      await rpc(t, [
        call("getVersion", undefined, "a"),
        { jsonrpc: "2.0", method: "getHealth" },
        call("nope", undefined, 3),
      ])
    ).body as Rpc[];
    assert.deepEqual(
      out.map((r) => r.id),
      ["a", 3],
    );
    assert.equal(out[1]?.error?.code, -32601);
    const onlyNotifications = await rpc(t, [{ jsonrpc: "2.0", method: "getHealth" }]);
    assert.equal(onlyNotifications.status, 204);
    const empty = (await rpc(t, [])).body as Rpc;
    assert.equal(empty.error?.code, -32600);
    const big = (
      await rpc(
        t,
        Array.from({ length: 101 }, (_, i) => call("getVersion", undefined, i)),
      )
    ).body as Rpc;
    assert.equal(big.error?.code, -32013);
    assert.equal(big.error?.data?.details?.limit, 100);
  }));

test("only push may carry a push-sized body", () =>
  withRpc(
    async (t) => {
      const { id, head } = await t.contract();
      const pad = "x".repeat(1000);
      const small = (await rpc(t, call("getContract", { contract_id: id, pad }))).body as Rpc;
      assert.equal(small.error?.code, -32013);
      const push = (await rpc(t, call("push", { contract_id: id, commits: [], pad }), true)).body as Rpc;
      assert.deepEqual(push.result, { pushed: 0, head });
      const tooBig = await rpc(t, call("push", { contract_id: id, commits: [], pad: pad.repeat(6) }), true);
      assert.equal(tooBig.status, 413);
      assert.equal((tooBig.body as Rpc).error?.code, -32013);
    },
    { limits: { bodyBytes: 500, pushBodyBytes: 5000 } },
  ));

test("commits per push are refused with -32013 before the params schema walks them", () =>
  withRpc(
    async (t) => {
      const r = (await rpc(t, call("push", { contract_id: "x", commits: [1, 2, 3] }), true)).body as Rpc;
      assert.equal(r.error?.code, -32013);
      assert.equal(r.error?.data?.details?.limit, "commitsPerPush");
    },
    { limits: { commitsPerPush: 2 } },
  ));

test("the method table covers docs/api.md", () => {
  for (const m of [
    "getHealth",
    "getVersion",
    "createContract",
    "getContract",
    "getContractState",
    "getLog",
    "getCommit",
    "submitCommit",
    "push",
    "pull",
    "synthesize",
    "listTemplates",
    "getTemplate",
    "getAssets",
    "listIncomingSends",
    "register",
    "grant",
  ]) {
    assert.ok(RPC_METHODS[m], m);
  }
});
