/**
 * Every asset and REPOST failure code through every write route of a real hub on loopback
 * (PROTOCOL.md §3–4): REST fields form, REST `{commit}` form, REST push, JSON-RPC
 * `submitCommit` and JSON-RPC `push`. One table of failing operations drives the matrix;
 * REST answers 422 VALIDATION_FAILED, `"<OPERATION> rejected: …"` and `details.rpc_code`,
 * JSON-RPC answers the code itself. Then the same CREATE/SEND/RECV succeeds on each route.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { signRequest } from "../src/auth/signRequest.js";
import type { Operation } from "../src/contract/Commit.js";
import { buildCommit } from "../src/contract/engine.js";
import { type LiveHub, type Party, startLiveHub } from "./e2e-transports.js";

/** The fields of the response bodies the tests read. */
interface Body {
  error?: string;
  code?: string;
  details?: { rpc_code?: number; reason?: string; balance?: number; amount?: number };
  head?: string;
  commit_hash?: string;
}

let live: LiveHub;
let alice: Party;
let bob: Party;

/** A signed HTTP call; resolves to status and parsed body. */
async function call(base: string, who: Party, method: string, path: string, body?: unknown) {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = {
    ...signRequest(who.access.seed, { method, url: path, body: text ?? "" }),
    ...(text === undefined ? {} : { "content-type": "application/json" }),
  };
  const res = await fetch(base + path, { method, headers, ...(text === undefined ? {} : { body: text }) });
  return { status: res.status, body: (await res.json()) as Body };
}

const rest = (who: Party, method: string, path: string, body?: unknown) =>
  call(live.servers.restUrl, who, method, path, body);

async function rpc(who: Party, method: string, params: Record<string, unknown>) {
  const { body } = await call(live.servers.rpcUrl!, who, "POST", "/", { jsonrpc: "2.0", id: 1, method, params });
  return body as unknown as { result?: unknown; error?: { code: number; message: string; data?: { code: string } } };
}

async function head(id: string): Promise<string> {
  return (await rest(alice, "GET", `/contracts/${id}/state`)).body.head!;
}

async function createContract(who: Party, id: string, extra: Record<string, unknown> = {}) {
  const r = await rest(who, "POST", "/contracts", { contract_id: id, model: null, rules: [], ...extra });
  assert.equal(r.status, 201, JSON.stringify(r.body));
}

/** Stores one operation in `id` as `who` (fields form); returns the commit hash. */
async function submit(who: Party, id: string, op: Operation): Promise<string> {
  const r = await rest(who, "POST", `/contracts/${id}/commits`, { contract_id: id, ...op });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.commit_hash!;
}

/** What a route answered: the JSON-RPC number and the REST triple. */
interface Outcome {
  rpcCode: number;
  status?: number;
  code?: string;
  message: string;
}

/** The five write routes, each submitting one operation to a contract. */
const ROUTES: Record<string, (id: string, op: Operation) => Promise<Outcome>> = {
  async "REST fields"(id, op) {
    const r = await rest(alice, "POST", `/contracts/${id}/commits`, { contract_id: id, ...op });
    return restOutcome(r);
  },
  async "REST {commit}"(id, op) {
    const commit = buildCommit(id, await head(id), [op]);
    return restOutcome(await rest(alice, "POST", `/contracts/${id}/commits`, { contract_id: id, commit }));
  },
  async "REST push"(id, op) {
    const commit = buildCommit(id, await head(id), [op]);
    return restOutcome(await rest(alice, "POST", `/contracts/${id}/push`, { commits: [commit] }));
  },
  async "JSON-RPC submitCommit"(id, op) {
    return rpcOutcome(await rpc(alice, "submitCommit", { contract_id: id, ...op }));
  },
  async "JSON-RPC push"(id, op) {
    const commit = buildCommit(id, await head(id), [op]);
    return rpcOutcome(await rpc(alice, "push", { contract_id: id, commits: [commit] }));
  },
};

function restOutcome(r: { status: number; body: Body }): Outcome {
  return {
    status: r.status,
    code: r.body.code ?? "",
    rpcCode: r.body.details?.rpc_code ?? 0,
    message: r.body.error ?? "",
  };
}

function rpcOutcome(r: Awaited<ReturnType<typeof rpc>>): Outcome {
  assert.ok(r.error, `expected an error, got ${JSON.stringify(r.result)}`);
  return { rpcCode: r.error.code, code: r.error.data?.code, message: r.error.message };
}

/** The facts the failing cases refer to, made once in `before`. */
const w = { received: "", pending: "" };
const missingHash = randomBytes(32).toString("hex");

/** Each failure: the contract written to, the operation, the expected code, and `details.reason`. */
const CASES: Array<{ name: string; id: string; op: () => Operation; rpc: number; reason: string }> = [
  { name: "malformed CREATE", id: "ra", op: () => create("z", 0), rpc: -32602, reason: "asset_value" },
  { name: "SEND of zero", id: "ra", op: () => sendOp("tok", "rb", 0), rpc: -32020, reason: "zero_amount" },
  {
    name: "SEND to a missing contract",
    id: "ra",
    op: () => sendOp("tok", "nowhere", 10),
    rpc: -32025,
    reason: "recipient_not_found",
  },
  {
    name: "SEND of an unknown asset",
    id: "ra",
    op: () => sendOp("nope", "rb", 10),
    rpc: -32022,
    reason: "asset_not_found",
  },
  {
    name: "SEND of an ambiguous asset",
    id: "rc",
    op: () => sendOp("x", "rb", 1),
    rpc: -32022,
    reason: "asset_ambiguous",
  },
  { name: "SEND not divisible", id: "ra", op: () => sendOp("tok", "rb", 15), rpc: -32023, reason: "divisibility" },
  {
    name: "SEND over the balance",
    id: "ra",
    op: () => sendOp("tok", "rb", 100_000),
    rpc: -32024,
    reason: "insufficient_balance",
  },
  { name: "RECV of a missing SEND", id: "rb", op: () => recvOp(missingHash), rpc: -32030, reason: "send_not_found" },
  { name: "RECV by the wrong contract", id: "rc", op: () => recvOp(w.pending), rpc: -32031, reason: "wrong_recipient" },
  { name: "RECV of a received SEND", id: "rb", op: () => recvOp(w.received), rpc: -32032, reason: "already_received" },
  { name: "CREATE of an existing asset", id: "ra", op: () => create("tok", 5), rpc: -32040, reason: "asset_exists" },
  {
    name: "REPOST of a missing source",
    id: "rb",
    op: () => repost("ghost", "/notes/a.text", "hi"),
    rpc: -32010,
    reason: "source_not_found",
  },
  {
    name: "REPOST of an unreadable source",
    id: "rb",
    op: () => repost("rp", "/notes/a.text", "secret"),
    rpc: -32010,
    reason: "source_not_found",
  },
  {
    name: "REPOST of a missing path",
    id: "rb",
    op: () => repost("rq", "/notes/zz.text", "hello"),
    rpc: -32011,
    reason: "source_path_not_found",
  },
  {
    name: "REPOST of another value",
    id: "rb",
    op: () => repost("rq", "/notes/a.text", "other"),
    rpc: -32012,
    reason: "value_mismatch",
  },
];

function create(asset_id: string, quantity: number): Operation {
  return { method: "create", value: { asset_id, quantity, divisibility: 10 } };
}
function sendOp(asset_id: string, to_contract: string, amount: number): Operation {
  return { method: "send", value: { asset_id, to_contract, amount } };
}
function recvOp(send_commit_id: string): Operation {
  return { method: "recv", value: { send_commit_id } };
}
function repost(source: string, path: string, value: unknown): Operation {
  return { method: "repost", path: `/reposts/${source}${path}`, value };
}

before(async () => {
  live = await startLiveHub();
  alice = await live.party("alice");
  bob = await live.party("bob");
  for (const id of ["ra", "rb", "rc", "x1", "x2"]) await createContract(alice, id);
  await createContract(bob, "rp", { readers: [bob.key], state: { "/notes/a.text": "secret" } });
  await createContract(bob, "rq", { state: { "/notes/a.text": "hello" } });
  await submit(alice, "ra", create("tok", 1000));
  w.received = await submit(alice, "ra", sendOp("tok", "rb", 100));
  await submit(alice, "rb", recvOp(w.received));
  w.pending = await submit(alice, "ra", sendOp("tok", "rb", 100));
  // rc holds two assets named "x", so a plain "x" is ambiguous.
  for (const issuer of ["x1", "x2"]) {
    await submit(alice, issuer, { method: "create", value: { asset_id: "x", quantity: 5, divisibility: 1 } });
    await submit(alice, "rc", recvOp(await submit(alice, issuer, sendOp("x", "rc", 5))));
  }
});
after(async () => live.close());

for (const [route, run] of Object.entries(ROUTES)) {
  describe(`asset failures through ${route}`, () => {
    for (const c of CASES) {
      it(`${c.name} → ${c.rpc}`, async () => {
        const before = await head(c.id);
        const out = await run(c.id, c.op());
        assert.equal(out.rpcCode, c.rpc, out.message);
        assert.equal(out.code, "VALIDATION_FAILED", out.message);
        if (out.status !== undefined) assert.equal(out.status, 422);
        const operation = c.op().method.toUpperCase();
        assert.ok(out.message.startsWith(`${operation} rejected: `), out.message);
        assert.equal(await head(c.id), before, "a rejected commit is not stored");
      });
    }
  });
}

describe("asset failure details", () => {
  it("names the reason and, for an insufficient balance, the balance held and the amount needed", async () => {
    for (const c of CASES) {
      const r = await rest(alice, "POST", `/contracts/${c.id}/commits`, { contract_id: c.id, ...c.op() });
      assert.equal(r.body.details?.reason, c.reason, c.name);
    }
    const r = await rest(alice, "POST", "/contracts/ra/commits", {
      contract_id: "ra",
      ...sendOp("tok", "rb", 100_000),
    });
    assert.equal(r.body.details?.balance, 800);
    assert.equal(r.body.details?.amount, 100_000);
    assert.match(r.body.error!, /800/);
    assert.match(r.body.error!, /100000/);
  });
});

describe("asset success through every route", () => {
  it("stores CREATE, SEND and RECV through each route and reports them on GET /assets and getAssets", async () => {
    const names = Object.keys(ROUTES);
    for (const [i, route] of names.entries()) {
      const issuer = `ok${i}`;
      await createContract(alice, issuer);
      await createContract(alice, `${issuer}r`);
      for (const op of [create("c", 100), sendOp("c", `${issuer}r`, 30)]) await storeVia(route, issuer, op);
      const sendHash = await head(issuer);
      await storeVia(route, `${issuer}r`, recvOp(sendHash));
      const viaRest = await rest(alice, "GET", `/contracts/${issuer}r/assets`);
      assert.equal(viaRest.status, 200);
      assert.deepEqual(viaRest.body, {
        contract_id: `${issuer}r`,
        assets: [],
        balances: [{ asset_id: "c", issuer, amount: 30 }],
        assets_total: 0,
        balances_total: 1,
      });
      const viaRpc = await rpc(alice, "getAssets", { contract_id: issuer });
      assert.deepEqual(viaRpc.result, {
        contract_id: issuer,
        assets: [{ asset_id: "c", issuer, quantity: 100, divisibility: 10 }],
        balances: [{ asset_id: "c", issuer, amount: 70 }],
        assets_total: 1,
        balances_total: 1,
      });
    }
  });
});

/** Stores `op` in `id` through `route` (success path of each route). */
async function storeVia(route: string, id: string, op: Operation): Promise<void> {
  const parent = await head(id);
  const commit = buildCommit(id, parent, [op]);
  let ok: boolean;
  if (route === "REST fields")
    ok = (await rest(alice, "POST", `/contracts/${id}/commits`, { contract_id: id, ...op })).status === 201;
  else if (route === "REST {commit}")
    ok = (await rest(alice, "POST", `/contracts/${id}/commits`, { contract_id: id, commit })).status === 201;
  else if (route === "REST push")
    ok = (await rest(alice, "POST", `/contracts/${id}/push`, { commits: [commit] })).status === 200;
  else if (route === "JSON-RPC submitCommit")
    ok = (await rpc(alice, "submitCommit", { contract_id: id, ...op })).result !== undefined;
  else ok = (await rpc(alice, "push", { contract_id: id, commits: [commit] })).result !== undefined;
  assert.ok(ok, `${route} refused ${op.method}`);
  assert.notEqual(await head(id), parent);
}
