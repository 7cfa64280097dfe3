import assert from "node:assert/strict";
import { test } from "node:test";
import { RPC_METHODS } from "./rpcMethods.js";
import { STUB_HASH } from "./testing/StubHub.js";
import { testApp } from "./testing/testApps.js";

type Rpc = {
  id?: unknown;
  result?: unknown;
  error?: { code: number; data?: { code: string; details?: Record<string, unknown> } };
};

async function rpc(
  t: Awaited<ReturnType<typeof testApp>>,
  body: unknown,
  signed = false,
): Promise<{ status: number; body: Rpc | Rpc[] | null }> {
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

test("reads map onto the hub with params by name; results equal the REST bodies", async () => {
  const t = await testApp("rpc");
  const health = await rpc(t, call("getHealth"));
  assert.deepEqual((health.body as Rpc).result, { status: "ok", version: "0.1.0" });
  assert.equal(((await rpc(t, call("getVersion"))).body as Rpc).result, "0.1.0");
  const state = (await rpc(t, call("getContractState", { contract_id: "abc" }))).body as Rpc;
  assert.equal((state.result as { head: string }).head, STUB_HASH);
  await rpc(t, call("getLog", { contract_id: "abc", limit: 3, offset: 1 }));
  assert.deepEqual(t.hub.last("getLog")?.args, ["abc", { limit: 3, offset: 1 }]);
  await rpc(t, call("pull", { contract_id: "abc", since: STUB_HASH }));
  assert.deepEqual(t.hub.last("pull")?.args, ["abc", { since: STUB_HASH }]);
  const health2 = await t.app.inject({ url: "/health" });
  assert.equal(health2.statusCode, 200);
});

test("protocol errors: -32700, -32600, -32601, -32602 with data.code", async () => {
  const t = await testApp("rpc");
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
});

test("hub errors map through the table; unexpected throws are -32603 without their message", async () => {
  const t = await testApp("rpc");
  const nf = (await rpc(t, call("getContract", { contract_id: "missing" }))).body as Rpc;
  assert.equal(nf.error?.code, -32004);
  assert.equal(nf.error?.data?.code, "NOT_FOUND");
  const boom = (await rpc(t, call("getContract", { contract_id: "explode" }))).body as Rpc & {
    error: { message: string };
  };
  assert.equal(boom.error.code, -32603);
  assert.doesNotMatch(boom.error.message, /secret/);
  const na = (await rpc(t, call("listTemplates"))).body as Rpc;
  assert.equal(na.error?.code, -32053);
});

test("writes need an authenticated request (-32001); signed requests reach the hub as the caller", async () => {
  const t = await testApp("rpc");
  for (const m of ["createContract", "submitCommit", "push", "grant"]) {
    const params = { contract_id: "abc", commits: [], identity: "x", role: "reader" };
    const r = (await rpc(t, call(m, params))).body as Rpc;
    assert.equal(r.error?.code, -32001, m);
  }
  const ok = (
    await rpc(t, call("submitCommit", { contract_id: "abc", method: "post", path: "/a.text", value: "v" }), true)
  ).body as Rpc;
  assert.equal((ok.result as { commit_hash: string }).commit_hash, STUB_HASH);
  assert.equal(t.hub.last("submitCommit")?.caller?.accessKey, t.access.publicKey.toString("hex"));
  const badAuth = await t.app.inject({
    method: "POST",
    url: "/",
    payload: JSON.stringify(call("getHealth")),
    headers: { "x-hub-key": "00" },
  });
  assert.equal(badAuth.statusCode, 401);
  assert.equal((JSON.parse(badAuth.body) as Rpc).error?.code, -32001);
});

test("batches answer in order, skip notifications, and are capped", async () => {
  const t = await testApp("rpc");
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
});

test("only push may carry a push-sized body", async () => {
  const t = await testApp("rpc", { limits: { bodyBytes: 500, pushBodyBytes: 5000 } });
  const pad = "x".repeat(1000);
  const small = (await rpc(t, call("getContract", { contract_id: "abc", pad }))).body as Rpc;
  assert.equal(small.error?.code, -32013);
  const push = (await rpc(t, call("push", { contract_id: "abc", commits: [], pad }), true)).body as Rpc;
  assert.deepEqual(push.result, { pushed: 0, head: STUB_HASH });
  const tooBig = await rpc(t, call("push", { contract_id: "abc", commits: [], pad: pad.repeat(6) }), true);
  assert.equal(tooBig.status, 413);
  assert.equal((tooBig.body as Rpc).error?.code, -32013);
});

test("the method table covers PROTOCOL.md §8", () => {
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
    "register",
    "grant",
  ]) {
    assert.ok(RPC_METHODS[m], m);
  }
});
