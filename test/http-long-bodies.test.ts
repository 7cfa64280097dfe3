/**
 * Long request bodies and WebSocket frames (docs/security.md, "Expensive requests"): a body
 * is parsed only once its signature checked out, and one over 64 KiB is parsed in slices
 * charged to the caller's work budget. JSON.parse held the event loop 1–2 s over 16 MiB of
 * nested empty arrays, for anyone, before any authentication; now `GET /health` is answered
 * while such a body is being parsed, a forged one is refused without being parsed, and a
 * caller whose budget is spent is refused before its long body is read.
 *
 * How the parse's slices are seen: the hub's `ticker` (the real one) is wrapped to count its
 * ticks and to send a `GET /health` at the first, whose answer must come back first.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { WebSocket } from "ws";
import { signRequest } from "../src/auth/signRequest.js";
import type { Caller } from "../src/hub/HubApi.js";
import { askHealth, listenRestAndRpc } from "./support/liveTestApp.js";
import { genesisFor, postsAfter, type TestApp, testApp } from "./support/testApps.js";

/** About 2 MiB of `[[[…]]]` elements: tens of thousands of pieces of work, ~60 arrays each. */
const NESTED = `[${Array.from({ length: 16_000 }, () => `${"[".repeat(60)}${"]".repeat(60)}`).join(",")}]`;

interface Watch {
  ticks: number;
  /** What finished, in order: "health" and "body". */
  order: string[];
}

/** Counts the parse's ticks; at the first, asks `GET /health` and notes when it is answered. */
function watchTicks(t: TestApp, restUrl: string): Watch {
  const watch: Watch = { ticks: 0, order: [] };
  const real = t.hub.ticker.bind(t.hub);
  t.hub.ticker = (caller: Caller) => {
    const tick = real(caller);
    return async () => {
      if (watch.ticks++ === 0) {
        void askHealth(restUrl, watch.order);
      }
      await tick();
    };
  };
  return watch;
}

describe("long bodies", () => {
  let t: TestApp;
  let rpc: FastifyInstance;
  let restUrl: string;
  let rpcUrl: string;

  before(async () => {
    t = await testApp("rest");
    ({ restUrl, rpcUrl, rpc } = await listenRestAndRpc(t));
  });
  after(async () => {
    await rpc.close();
    await t.close();
  });

  async function post(url: string, path: string, body: string, sign: boolean) {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (sign) Object.assign(headers, signRequest(t.owner.access.seed, { method: "POST", url: path, body }));
    const res = await fetch(url + path, { method: "POST", headers, body });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it("answers GET /health while a signed push of nested arrays is parsed, then refuses the body by its schema", async () => {
    const watch = watchTicks(t, restUrl);
    const answer = await post(restUrl, "/contracts/long-body/push", NESTED, true);
    watch.order.push("body");
    assert.deepEqual(
      [answer.status, answer.body.code, (answer.body.details as { reason?: string })?.reason],
      [400, "INVALID_REQUEST", "schema"],
    );
    assert.ok(watch.ticks > 10, `${watch.ticks} ticks`);
    assert.deepEqual(watch.order, ["health", "body"]);
  });

  it("answers GET /health while an anonymous JSON-RPC body of nested arrays is parsed", async () => {
    const watch = watchTicks(t, restUrl);
    const answer = await post(rpcUrl, "/", NESTED, false);
    watch.order.push("body");
    const error = answer.body.error as { code: number; data: { details: { reason: string } } };
    assert.deepEqual([error.code, error.data.details.reason], [-32013, "batch_too_large"]);
    assert.ok(watch.ticks > 10, `${watch.ticks} ticks`);
    assert.deepEqual(watch.order, ["health", "body"]);
  });

  it("answers GET /health while a WebSocket frame of nested arrays is parsed", async () => {
    const watch = watchTicks(t, restUrl);
    const ws = new WebSocket(`${restUrl.replace(/^http/, "ws")}/ws`);
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    const frames: string[] = [];
    const answered = new Promise<void>((resolve) =>
      ws.on("message", (data) => {
        const frame = data.toString();
        frames.push(frame);
        if (frame.includes('"error"')) resolve();
      }),
    );
    ws.send(NESTED);
    await answered;
    watch.order.push("body");
    ws.close();
    const error = JSON.parse(frames.at(-1)!).error as { code: number };
    assert.equal(error.code, -32013);
    assert.ok(watch.ticks > 10, `${watch.ticks} ticks`);
    assert.deepEqual(watch.order, ["health", "body"]);
  });

  it("refuses a long body whose signature is forged without parsing it", async () => {
    const watch = watchTicks(t, restUrl);
    const headers = {
      "content-type": "application/json",
      ...signRequest(t.owner.access.seed, { method: "POST", url: "/contracts/long-body/push", body: "{}" }),
    };
    const res = await fetch(`${restUrl}/contracts/long-body/push`, { method: "POST", headers, body: NESTED });
    const body = (await res.json()) as { code: string };
    assert.deepEqual([res.status, body.code], [401, "UNAUTHORIZED"]);
    assert.equal(watch.ticks, 0);
  });

  it("stores a push of 3,000 commits parsed in pieces, the same as one parsed whole", async () => {
    const id = "long-push";
    const genesis = genesisFor(id, t.owner);
    const commits = [genesis, ...postsAfter(id, genesis.hash, 2_999)];
    const text = JSON.stringify({ commits });
    assert.ok(text.length > 64 * 1024);
    const watch = watchTicks(t, restUrl);
    const answer = await post(restUrl, `/contracts/${id}/push`, text, true);
    assert.deepEqual([answer.status, answer.body.pushed, answer.body.head], [200, 3_000, commits.at(-1)!.hash]);
    assert.ok(watch.ticks > 0, `${watch.ticks} ticks`);
  });
});

describe("long bodies and the work budget", () => {
  let t: TestApp;
  let restUrl: string;

  before(async () => {
    t = await testApp("rest", { workBudgetMs: 1 });
    restUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
  });
  after(async () => t.close());

  it("charges the parse to the caller, and refuses its next long body with 429 work_budget before parsing it", async () => {
    const path = "/contracts/budget/push";
    const send = async () => {
      const headers = {
        "content-type": "application/json",
        ...signRequest(t.owner.access.seed, { method: "POST", url: path, body: NESTED }),
      };
      const res = await fetch(restUrl + path, { method: "POST", headers, body: NESTED });
      return { status: res.status, body: (await res.json()) as { code: string; details?: { reason?: string } } };
    };
    assert.equal((await send()).status, 400);
    const refused = await send();
    assert.deepEqual(
      [refused.status, refused.body.code, refused.body.details?.reason],
      [429, "RATE_LIMITED", "work_budget"],
    );
    // Another caller is not affected; nor is a short body of the same caller.
    const other = await t.principal();
    const short = t.signed({ method: "GET", url: "/health" });
    assert.equal((await short).statusCode, 200);
    const mine = await t.signed({ method: "POST", url: "/contracts", body: { model: null, rules: [] } });
    assert.equal(mine.statusCode, 201);
    const theirs = await t.signed({ method: "POST", url: path, raw: NESTED, as: other });
    assert.equal(theirs.statusCode, 400);
  });
});

describe("arrays and objects per body", () => {
  let t: TestApp;
  let rpc: FastifyInstance;
  let restUrl: string;
  let rpcUrl: string;

  before(async () => {
    t = await testApp("rest", { limits: { jsonContainers: 5_000 } });
    ({ restUrl, rpcUrl, rpc } = await listenRestAndRpc(t));
  });
  after(async () => {
    await rpc.close();
    await t.close();
  });

  /** A body over 64 KiB with 6,001 arrays: over the limit of 5,000 set above. */
  const MANY = `[${Array.from({ length: 3_000 }, () => `[[${" ".repeat(20)}]]`).join(",")}]`;

  it("refuses a body with more arrays and objects than the limit: REST 413, JSON-RPC -32013", async () => {
    const path = "/contracts/many/push";
    const headers = {
      "content-type": "application/json",
      ...signRequest(t.owner.access.seed, { method: "POST", url: path, body: MANY }),
    };
    const res = await fetch(restUrl + path, { method: "POST", headers, body: MANY });
    const body = (await res.json()) as { code: string; details: { reason: string; limit: number } };
    assert.deepEqual(
      [res.status, body.code, body.details.reason, body.details.limit],
      [413, "PAYLOAD_TOO_LARGE", "json_too_many_containers", 5_000],
    );
    const answer = await fetch(rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: MANY });
    const { error } = (await answer.json()) as { error: { code: number; data: { details: { reason: string } } } };
    assert.deepEqual([error.code, error.data.details.reason], [-32013, "json_too_many_containers"]);
  });
});
