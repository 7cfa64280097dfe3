/**
 * Signed-path versus routed-path tricks (anchors B.2 #5) over a real hub: the signature covers
 * the method, path and query exactly as sent, so `%2F`, re-encoding, query reordering, a
 * trailing slash, a changed case or HEAD for GET never reach a contract under someone else's
 * signature; JSON-RPC batches mixing allowed and forbidden calls answer each item on its own.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { FastifyInstance } from "fastify";
import { signRequest } from "../src/auth/signRequest.js";
import { buildRpcApp } from "../src/http/buildRpcApp.js";
import { type Principal, type TestApp, testApp } from "./support/testApps.js";

let t: TestApp;
let rpcApp: FastifyInstance;
let stranger: Principal;
let pub: string;
let priv: string;

before(async () => {
  t = await testApp();
  rpcApp = await buildRpcApp(t.options);
  await rpcApp.ready();
  stranger = await t.principal();
  pub = (await t.contract({ contract_id: "pub", model: null, rules: [] })).id;
  priv = (await t.contract({ contract_id: "priv", model: null, rules: [], readers: [] })).id;
});
after(async () => {
  await rpcApp.close();
  await t.close();
});

const reason = (res: { body: string }) => JSON.parse(res.body).details?.reason;

/** Sends `sentUrl` with headers signed for `signedUrl` (and `signedMethod`). */
function mismatched(signedUrl: string, sentUrl: string, signedMethod = "GET", sentMethod = "GET", as = t.owner) {
  const headers = signRequest(as.access.seed, { method: signedMethod, url: signedUrl });
  return t.app.inject({ method: sentMethod as "GET", url: sentUrl, headers });
}

test("%2F in an id is an invalid id (400), never another route or contract", async () => {
  for (const url of [`/contracts/${pub}%2Fstate`, `/contracts/${priv}%2F..%2F${pub}/state`, "/contracts/%2F"]) {
    const res = await t.signed({ method: "GET", url });
    assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
    assert.equal(JSON.parse(res.body).details.field, "params/id");
  }
});

test("a signature covers the path as sent: re-encoded characters do not verify", async () => {
  const res = await mismatched(`/contracts/${priv}/state`, `/contracts/pri%76/state`);
  assert.deepEqual([res.statusCode, reason(res)], [401, "bad_signature"]);
  // Signed as sent, the encoded form is served: the client signed exactly what it sent.
  const exact = await mismatched(`/contracts/pri%76/state`, `/contracts/pri%76/state`);
  assert.equal(exact.statusCode, 200);
});

test("a signature covers the query as sent: reordered or added parameters do not verify", async () => {
  const reordered = await mismatched(
    `/contracts/${priv}/log?limit=1&offset=0`,
    `/contracts/${priv}/log?offset=0&limit=1`,
  );
  assert.deepEqual([reordered.statusCode, reason(reordered)], [401, "bad_signature"]);
  const added = await mismatched(`/contracts/${priv}/log`, `/contracts/${priv}/log?limit=1`);
  assert.equal(added.statusCode, 401);
  const same = await mismatched(`/contracts/${priv}/log?limit=1&offset=0`, `/contracts/${priv}/log?limit=1&offset=0`);
  assert.equal(same.statusCode, 200);
});

test("a trailing slash or another case is no route (404), even when signed as sent", async () => {
  for (const url of [`/contracts/${pub}/state/`, `/Contracts/${pub}/state`, `/contracts/${pub}/STATE`]) {
    const res = await t.signed({ method: "GET", url });
    assert.deepEqual([res.statusCode, reason(res)], [404, "no_route"], url);
  }
});

test("HEAD is its own method: a GET signature does not verify for it; strangers get 404 for private contracts", async () => {
  const crossed = await mismatched(`/contracts/${priv}`, `/contracts/${priv}`, "GET", "HEAD");
  assert.equal(crossed.statusCode, 401);
  const strangerHead = await t.signed({ method: "HEAD", url: `/contracts/${priv}`, as: stranger });
  assert.equal(strangerHead.statusCode, 404);
  assert.equal(strangerHead.body, "");
  const ownerHead = await t.signed({ method: "HEAD", url: `/contracts/${priv}` });
  assert.equal(ownerHead.statusCode, 200);
  assert.equal((await t.app.inject({ method: "HEAD", url: `/contracts/${pub}` })).statusCode, 200);
});

test("method-override headers are ignored: the signed method is the method served", async () => {
  const url = `/contracts/${pub}/state`;
  const headers = { ...signRequest(t.owner.access.seed, { method: "GET", url }), "x-http-method-override": "POST" };
  const res = await t.app.inject({ method: "GET", url, headers });
  assert.equal(res.statusCode, 200);
  assert.equal(JSON.parse(res.body).commit_count, 1);
});

test("granting access to yourself is refused: only the owner grants", async () => {
  const self = await t.signed({
    method: "POST",
    url: `/contracts/${pub}/grant`,
    body: { identity: stranger.key, role: "writer" },
    as: stranger,
  });
  assert.equal(self.statusCode, 403);
  const write = await t.signed({
    method: "POST",
    url: `/contracts/${pub}/commits`,
    body: { contract_id: pub, method: "post", path: "/a.text", value: "x" },
    as: stranger,
  });
  assert.equal(write.statusCode, 403);
});

test("a JSON-RPC batch mixing allowed and forbidden calls answers each item with its own result or error", async () => {
  const calls = [
    { jsonrpc: "2.0", id: 1, method: "getContract", params: { contract_id: pub } },
    { jsonrpc: "2.0", id: 2, method: "getContract", params: { contract_id: priv } },
    {
      jsonrpc: "2.0",
      id: 3,
      method: "submitCommit",
      params: { contract_id: pub, method: "post", path: "/a.text", value: 1 },
    },
    { jsonrpc: "2.0", id: 4, method: "grant", params: { contract_id: pub, identity: stranger.key, role: "writer" } },
    { jsonrpc: "2.0", id: 5, method: "createContract", params: { model: null, rules: [] } },
    { jsonrpc: "2.0", method: "push", params: { contract_id: priv, commits: [] } },
    { jsonrpc: "2.0", id: 6, method: "getContractState", params: { contract_id: "no-such-contract" } },
    { jsonrpc: "2.0", id: 7, method: "getAccess" },
  ];
  const raw = JSON.stringify(calls);
  const headers = {
    ...signRequest(stranger.access.seed, { method: "POST", url: "/", body: raw }),
    "content-type": "application/json",
  };
  const res = await rpcApp.inject({ method: "POST", url: "/", payload: raw, headers });
  assert.equal(res.statusCode, 200);
  const out = JSON.parse(res.body) as { id: number; result?: unknown; error?: { code: number } }[];
  assert.deepEqual(
    out.map((r) => [r.id, r.error?.code ?? "ok"]),
    [
      [1, "ok"],
      [2, -32004],
      [3, -32003],
      [4, -32003],
      [5, "ok"],
      [6, -32004],
      [7, "ok"],
    ],
  );
  // The forbidden calls changed nothing; the allowed one stored its contract.
  assert.equal((await t.hub.getState(t.owner.caller, pub)).commit_count, 1);
  assert.equal((await t.hub.getState(t.owner.caller, priv)).commit_count, 1);
  const created = (out[4]!.result as { contract_id: string }).contract_id;
  assert.equal((await t.hub.getState(stranger.caller, created)).commit_count, 1);
  // Anonymous, the same batch's writes are 401 item by item, and the private read is still 404.
  const anon = await rpcApp.inject({
    method: "POST",
    url: "/",
    payload: raw,
    headers: { "content-type": "application/json" },
  });
  const codes = (JSON.parse(anon.body) as { id: number; error?: { code: number } }[]).map((r) => r.error?.code ?? "ok");
  assert.deepEqual(codes, ["ok", -32004, -32001, -32001, -32001, -32004, -32001]);
});
