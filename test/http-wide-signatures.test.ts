/**
 * A commit whose `head.signatures` holds 100,000 entries (or whose `head.attestations` holds
 * 100,000 elements): the route's schema checked every entry in one piece (140–300 ms), before
 * the hub's own count refused it. Now the count is checked first, as the commits of a push
 * and the operations of a commit are, on every transport: REST, JSON-RPC over HTTP, /ws.
 *
 * A new contract's `state` is the same: one genesis operation per path, so at most 63 paths,
 * but 60,000 were checked by the schema and built into a commit before the hub refused it.
 *
 * How it is seen: each body is also malformed for the schema (a commit's `hash` a number, a
 * contract's `rules`), so an answer naming the schema (400 `schema`) means the schema walked
 * the map first; the count's answer (413 `limit_exceeded`, `details.limit` naming it) means it
 * never did. The create schema's `state` and `params` check nothing per member, and are no
 * longer walked at all (seen by objects that note being listed).
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { after, before, describe, it } from "node:test";
import { WebSocket } from "ws";
import { CreateContractBody } from "../src/api/schemas.js";
import { signRequest } from "../src/auth/signRequest.js";
import { validatorCompiler } from "../src/http/validatorCompiler.js";
import { type Listening, listenRestAndRpc, NO_WORK_BUDGET } from "./support/liveTestApp.js";
import { type TestApp, testApp } from "./support/testApps.js";

const WIDE = 100_000;

/** An object of `n` short members (names in base 36), parsed by the hub in slices. */
function wideSignatures(n: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < n; i++) out[i.toString(36)] = "x";
  return out;
}

/** A commit the schema refuses (`hash` is a number), with `head` as given. */
const commitWith = (head: Record<string, unknown>) => ({
  hash: 1,
  parent: null,
  data: [{ method: "post", path: "/a.text", value: "v" }],
  head: { parent: null, signatures: {}, ...head },
});

interface Refusal {
  code?: string;
  details?: { reason?: string; limit?: string; max?: number; actual?: number };
}

const over = (limit: string, max: number, actual = WIDE) => ({ reason: "limit_exceeded", limit, max, actual });

/** A new contract's state of `n` paths, with `rules` the schema refuses. */
const createWith = (n: number) => ({
  contract_id: "wide-state",
  rules: 1,
  state: Object.fromEntries(Array.from({ length: n }, (_, i) => [`/${i.toString(36)}.text`, "x"])),
});

describe("a commit with 100,000 signatures or attestations", () => {
  let t: TestApp;
  let live: Listening;
  const signatures = wideSignatures(WIDE);
  const attestations = Array.from({ length: WIDE }, () => 0);

  before(async () => {
    t = await testApp("rest", { limits: { bodyBytes: 4 * 1024 * 1024 }, workBudgetMs: NO_WORK_BUDGET });
    live = await listenRestAndRpc(t);
  });
  after(async () => live.close());

  async function rest(path: string, body: unknown): Promise<{ status: number; body: Refusal }> {
    const text = JSON.stringify(body);
    const headers = {
      "content-type": "application/json",
      ...signRequest(t.owner.access.seed, { method: "POST", url: path, body: text }),
    };
    const res = await fetch(live.restUrl + path, { method: "POST", headers, body: text });
    return { status: res.status, body: (await res.json()) as Refusal };
  }

  async function rpc(method: string, params: unknown): Promise<{ code: number; data: Refusal }> {
    const text = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
    const headers = {
      "content-type": "application/json",
      ...signRequest(t.owner.access.seed, { method: "POST", url: "/", body: text }),
    };
    const res = await fetch(`${live.rpcUrl}/`, { method: "POST", headers, body: text });
    return ((await res.json()) as { error: { code: number; data: Refusal } }).error;
  }

  it("is refused over REST for its count, before the route's schema walks it", async () => {
    const push = await rest("/contracts/x/push", { commits: [commitWith({ signatures })] });
    assert.deepEqual(
      [push.status, push.body.code, push.body.details],
      [413, "PAYLOAD_TOO_LARGE", over("signaturesPerCommit", 32)],
    );
    const one = await rest("/contracts/x/commits", { commit: commitWith({ signatures }) });
    assert.deepEqual([one.status, one.body.details], [413, over("signaturesPerCommit", 32)]);
    const attested = await rest("/contracts/x/push", { commits: [commitWith({ attestations })] });
    assert.deepEqual([attested.status, attested.body.details], [413, over("attestationsPerCommit", 16)]);
  });

  it("is refused for its count when given as fields, and when added to a proposal", async () => {
    const fields = { contract_id: "x", method: "post", path: "/a.text", value: "v", parent: 1 };
    const signed = await rest("/contracts/x/commits", { ...fields, signatures });
    assert.deepEqual([signed.status, signed.body.details], [413, over("signaturesPerCommit", 32)]);
    const attested = await rest("/contracts/x/commits", { ...fields, attestations });
    assert.deepEqual([attested.status, attested.body.details], [413, over("attestationsPerCommit", 16)]);
    // No such proposal: the count answers before the hub looks for it.
    const proposal = await rest(`/contracts/x/proposals/${"0".repeat(64)}/signatures`, { signatures });
    assert.deepEqual([proposal.status, proposal.body.details], [413, over("signaturesPerCommit", 32)]);
  });

  it("is refused for its count over JSON-RPC, with the code of the other count limits", async () => {
    const push = await rpc("push", { contract_id: "x", commits: [commitWith({ signatures })] });
    assert.deepEqual(
      [push.code, push.data.code, push.data.details],
      [-32013, "PAYLOAD_TOO_LARGE", over("signaturesPerCommit", 32)],
    );
    const submit = await rpc("submitCommit", { contract_id: "x", commit: commitWith({ attestations }) });
    assert.deepEqual([submit.code, submit.data.details], [-32013, over("attestationsPerCommit", 16)]);
  });

  it("a new contract's state of 60,000 paths is refused for its genesis' operations, before the schema", async () => {
    const created = await rest("/contracts", createWith(60_000));
    assert.deepEqual([created.status, created.body.details], [413, over("operationsPerCommit", 64, 60_001)]);
    const viaRpc = await rpc("createContract", createWith(60_000));
    assert.deepEqual([viaRpc.code, viaRpc.data.details], [-32013, over("operationsPerCommit", 64, 60_001)]);
    // 63 paths and the genesis are 64 operations: the schema's answer comes first.
    const fits = await rest("/contracts", createWith(63));
    assert.deepEqual([fits.status, fits.body.details?.reason], [400, "schema"]);
  });

  it("the create schema checks state and params as objects without listing their members", () => {
    const listed: string[] = [];
    const noting = (name: string) =>
      new Proxy(
        { a: 1 },
        {
          ownKeys: (target) => {
            listed.push(name);
            return Reflect.ownKeys(target);
          },
        },
      );
    const check = validatorCompiler({
      schema: CreateContractBody,
      httpPart: "body",
      method: "POST",
      url: "/contracts",
    });
    const checked = check({ state: noting("state"), params: noting("params") }) as { error?: unknown };
    assert.equal(checked.error, undefined);
    assert.deepEqual(listed, []);
    const wrong = check({ state: [], params: {} }) as { error?: unknown[] };
    assert.ok(Array.isArray(wrong.error) && wrong.error.length > 0);
  });

  it("template parameters of 100,000 names are refused naming the first unknown one", async () => {
    const params = { ...wideSignatures(WIDE) };
    const created = await rest("/contracts", { template: "escrow", params });
    assert.deepEqual([created.status, created.body.details?.reason], [400, "param_unknown"]);
  });

  it("is refused for its count over /ws", async () => {
    const ws = new WebSocket(`${live.restUrl.replace("http", "ws")}/ws`);
    const messages: Array<{ id?: number; error?: { code: number; data: Refusal } }> = [];
    const answered = new Promise<void>((resolve) =>
      ws.on("message", (m) => {
        messages.push(JSON.parse(String(m)));
        if (messages.some((a) => a.id === 1)) resolve();
      }),
    );
    await once(ws, "open");
    const params = { contract_id: "x", commits: [commitWith({ signatures })] };
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "push", params }));
    await answered;
    ws.close();
    const error = messages.find((a) => a.id === 1)?.error;
    assert.deepEqual([error?.code, error?.data.details], [-32013, over("signaturesPerCommit", 32)]);
  });
});
