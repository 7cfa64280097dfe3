/**
 * Rate limits and quotas (PROTOCOL.md §7, §13) over a real hub, with pinned clocks (no timing
 * assertions): a token bucket per access key, per identity (all its keys together) and per
 * address, shared by REST, JSON-RPC and WebSocket; 429 RATE_LIMITED with Retry-After,
 * `details.limit` and `details.scope` naming the bucket; failed authentications
 * count against the address; 0 turns limiting off; the per-identity synthesis quota.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { test } from "node:test";
import { WebSocket } from "ws";
import { registrationBody, signRequest, socketAuthParams } from "../src/auth/signRequest.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { buildRpcApp } from "../src/http/buildRpcApp.js";
import { RateLimiter } from "../src/http/RateLimiter.js";
import { SynthesisQuota } from "../src/synthesis/SynthesisQuota.js";
import { listenRestAndRpc } from "./support/liveTestApp.js";
import { type TestApp, testApp } from "./support/testApps.js";

const details = (res: { body: string }) => (JSON.parse(res.body) as { details: Record<string, unknown> }).details;

async function withApp(options: Parameters<typeof testApp>[1], fn: (t: TestApp) => Promise<void>): Promise<void> {
  const t = await testApp("rest", options);
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

test("a key's burst is spent, then 429 with Retry-After and details.limit; refilled as the clock moves", async () => {
  let now = 1_000_000;
  const limiter = new RateLimiter(2, 4, () => now);
  await withApp({ rateLimiter: limiter }, async (t) => {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await t.signed({ method: "GET", url: "/access" })).statusCode);
    assert.deepEqual(statuses, [200, 200, 200, 200, 429]);
    const limited = await t.signed({ method: "GET", url: "/access" });
    assert.equal(limited.statusCode, 429);
    assert.equal(JSON.parse(limited.body).code, "RATE_LIMITED");
    assert.deepEqual([details(limited).limit, details(limited).burst], [2, 4]);
    assert.equal(limited.headers["retry-after"], "1");
    // Another key and anonymous callers have their own buckets.
    const other = await t.principal();
    assert.equal((await t.signed({ method: "GET", url: "/access", as: other })).statusCode, 200);
    assert.equal((await t.app.inject({ url: "/health" })).statusCode, 200);
    now += 1000;
    assert.equal((await t.signed({ method: "GET", url: "/access" })).statusCode, 200);
  });
});

test("anonymous requests and failed authentications share the address's bucket", async () => {
  const limiter = new RateLimiter(1, 3, () => 5_000);
  await withApp({ rateLimiter: limiter }, async (t) => {
    const forged = { "x-hub-key": "ab".repeat(32), "x-hub-timestamp": "1", "x-hub-nonce": "00".repeat(8) };
    const bad = await t.app.inject({ url: "/access", headers: { ...forged, "x-hub-signature": "00".repeat(64) } });
    assert.equal(bad.statusCode, 401);
    assert.equal((await t.app.inject({ url: "/health" })).statusCode, 200);
    assert.equal((await t.app.inject({ url: "/contracts" })).statusCode, 200);
    const fourth = await t.app.inject({ url: "/health" });
    assert.equal(fourth.statusCode, 429);
    const forgedAgain = await t.app.inject({
      url: "/access",
      headers: { ...forged, "x-hub-signature": "00".repeat(64) },
    });
    assert.equal(forgedAgain.statusCode, 429);
    // A verified key is not held back by its address's bucket.
    assert.equal((await t.signed({ method: "GET", url: "/access" })).statusCode, 200);
  });
});

test("rate limit 0 turns limiting off", async () => {
  await withApp({ rateLimiter: new RateLimiter(0, 0, () => 0) }, async (t) => {
    const statuses = new Set<number>();
    for (let i = 0; i < 50; i++) statuses.add((await t.app.inject({ url: "/health" })).statusCode);
    assert.deepEqual([...statuses], [200]);
  });
});

test("REST, JSON-RPC and WebSocket frames spend one budget per key", async () => {
  const limiter = new RateLimiter(1, 3, () => 7_000);
  await withApp({ rateLimiter: limiter }, async (t) => {
    const rpc = await buildRpcApp(t.options);
    await rpc.listen({ port: 0, host: "127.0.0.1" });
    try {
      const port = (rpc.server.address() as { port: number }).port;
      const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
      const messages: { id?: number; error?: { code: number; data?: { details?: Record<string, unknown> } } }[] = [];
      const waiters: (() => void)[] = [];
      ws.on("message", (d) => {
        messages.push(JSON.parse(String(d)));
        waiters.shift()?.();
      });
      await once(ws, "open");
      const next = async () => {
        if (messages.length === 0) await new Promise<void>((r) => waiters.push(r));
        return messages.shift()!;
      };
      const hello = (await next()) as unknown as { params: { challenge: string } };
      // The upgrade request came from the address; the frames spend the key's tokens.
      const params = socketAuthParams(t.owner.access.seed, hello.params.challenge);
      ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "authenticate", params }));
      assert.equal((await next()).id, 1);
      assert.equal((await t.signed({ method: "GET", url: "/access" })).statusCode, 200);
      ws.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "getHealth" }));
      assert.equal((await next()).error, undefined);
      ws.send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "getHealth" }));
      assert.equal((await next()).error, undefined);
      ws.send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "getHealth" }));
      const limited = await next();
      assert.equal(limited.error?.code, -32029);
      assert.equal(limited.error?.data?.details?.limit, 1);
      ws.close();
    } finally {
      await rpc.close();
    }
  });
});

test("with a language-model key, synthesis is 401 anonymously and limited per identity by the quota", async () => {
  let now = 0;
  const env = {
    OPENAI_API_KEY: "test-key",
    // Nothing listens there: each allowed call fails upstream (502) without leaving this machine.
    HUB_LLM_BASE_URL: "http://127.0.0.1:9/v1",
    HUB_LLM_TIMEOUT_MS: "2000",
  };
  await withApp({ env, quota: new SynthesisQuota(2, () => now) }, async (t) => {
    const body = { description: "an escrow between a buyer and a seller" };
    const anon = await t.app.inject({ method: "POST", url: "/contracts/synthesize", payload: body });
    assert.equal(anon.statusCode, 401);
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await t.signed({ method: "POST", url: "/contracts/synthesize", body })).statusCode);
    }
    assert.deepEqual(statuses, [502, 502, 429]);
    const limited = await t.signed({ method: "POST", url: "/contracts/synthesize", body });
    assert.deepEqual([details(limited).reason, details(limited).limit], ["synthesis_quota", 2]);
    assert.equal(limited.headers["retry-after"], "1800");
    const other = await t.principal();
    const theirs = await t.signed({ method: "POST", url: "/contracts/synthesize", body, as: other });
    assert.equal(theirs.statusCode, 502);
    now += 30 * 60 * 1000;
    assert.equal((await t.signed({ method: "POST", url: "/contracts/synthesize", body })).statusCode, 502);
  });
});

test("a synthesis request refused for its body does not spend the quota", async () => {
  const env = { OPENAI_API_KEY: "test-key", HUB_LLM_BASE_URL: "http://127.0.0.1:9/v1", HUB_LLM_TIMEOUT_MS: "2000" };
  await withApp({ env, quota: new SynthesisQuota(1, () => 0) }, async (t) => {
    const refused = [];
    for (const description of ["   ", "x".repeat(20_001)]) {
      const r = await t.signed({ method: "POST", url: "/contracts/synthesize", body: { description } });
      refused.push([r.statusCode, details(r).field]);
    }
    assert.deepEqual(refused, [
      [400, "description"],
      [400, "description"],
    ]);
    // The one call of the hour is still there: it reaches the provider (nothing listens: 502).
    const body = { description: "an escrow between a buyer and a seller" };
    assert.equal((await t.signed({ method: "POST", url: "/contracts/synthesize", body })).statusCode, 502);
    assert.equal((await t.signed({ method: "POST", url: "/contracts/synthesize", body })).statusCode, 429);
  });
});

test("the synthesis quota is read from HUB_SYNTHESIS_QUOTA, with a default and 0 for none", () => {
  assert.equal(SynthesisQuota.fromEnv({ HUB_SYNTHESIS_QUOTA: "7" }).perHour, 7);
  assert.equal(SynthesisQuota.fromEnv({}).perHour, 100);
  const off = SynthesisQuota.fromEnv({ HUB_SYNTHESIS_QUOTA: "0" });
  for (let i = 0; i < 1000; i++) off.take("id");
  for (const bad of ["abc", "-1", "1.5", "1e3"]) {
    assert.throws(
      () => SynthesisQuota.fromEnv({ HUB_SYNTHESIS_QUOTA: bad }),
      (err: { details?: Record<string, unknown> }) =>
        err.details?.reason === "bad_config" && err.details.variable === "HUB_SYNTHESIS_QUOTA",
      bad,
    );
  }
});

/** A reply over loopback: its status, headers and parsed body. */
interface LiveReply {
  status: number;
  retryAfter: string | null;
  body: Record<string, unknown>;
}

async function live(res: Response): Promise<LiveReply> {
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as never };
}

/** `GET path` over loopback, signed with the access key of `seed` (none: anonymous). */
async function liveGet(url: string, path: string, seed?: Uint8Array): Promise<LiveReply> {
  const headers = seed ? signRequest(seed, { method: "GET", url: path, body: "" }) : {};
  return live(await fetch(`${url}${path}`, { headers }));
}

/** One JSON-RPC call over HTTP (`POST /`), signed with the access key of `seed`. */
async function liveRpc(url: string, seed: Uint8Array, method: string): Promise<LiveReply> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method });
  const headers = { "content-type": "application/json", ...signRequest(seed, { method: "POST", url: "/", body }) };
  return live(await fetch(`${url}/`, { method: "POST", headers, body }));
}

type RpcAnswer = { error?: { code: number; data?: { code?: string; details?: Record<string, unknown> } } };

/** A WebSocket on `/ws` from its own loopback address, authenticated with the access key of `seed`. */
async function liveSocket(rpcUrl: string, seed: Uint8Array, from: string) {
  const ws = new WebSocket(`${rpcUrl.replace("http", "ws")}/ws`, { localAddress: from });
  const frames: Record<string, unknown>[] = [];
  const waiting: (() => void)[] = [];
  ws.on("message", (m) => {
    frames.push(JSON.parse(String(m)));
    waiting.shift()?.();
  });
  const next = async () => {
    if (frames.length === 0) await new Promise<void>((r) => waiting.push(r));
    return frames.shift()!;
  };
  await once(ws, "open");
  const hello = (await next()) as { params: { challenge: string } };
  ws.send(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "authenticate",
      params: socketAuthParams(seed, hello.params.challenge),
    }),
  );
  assert.equal((await next()).error, undefined);
  let id = 0;
  return {
    call: async (method: string) => {
      ws.send(JSON.stringify({ jsonrpc: "2.0", id: ++id, method }));
      return (await next()) as RpcAnswer;
    },
    close: () => ws.close(),
  };
}

test("over loopback, an identity's access keys share one bucket: past it 429 rate_limited scope identity on REST, JSON-RPC and /ws", async () => {
  // 2/s with bursts of 4, for each key, each identity and each address; the clock is pinned.
  let now = 1_000_000;
  const t = await testApp("rest", { rateLimiter: new RateLimiter(2, 4, () => now) });
  const { restUrl, rpcUrl, close } = await listenRestAndRpc(t);
  try {
    // The owner's identity holds two access keys; another identity holds one.
    const a = t.owner.access.seed;
    const second = generateKeyPair();
    await t.options.registry.register(registrationBody(t.owner.identity.seed, second.seed));
    const b = second.seed;
    const other = await t.principal();

    // REST: key a spends 3 of its 4, key b 1 of its 4; the identity's 4 are spent.
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await liveGet(restUrl, "/access", a)).status);
    statuses.push((await liveGet(restUrl, "/access", b)).status);
    assert.deepEqual(statuses, [200, 200, 200, 200]);
    const limited = await liveGet(restUrl, "/access", b);
    assert.equal(limited.status, 429);
    assert.equal(limited.body.code, "RATE_LIMITED");
    const d = limited.body.details as Record<string, unknown>;
    assert.deepEqual([d.reason, d.scope, d.limit, d.burst, d.retry_after], ["rate_limited", "identity", 2, 4, 1]);
    assert.equal(limited.retryAfter, "1");
    const viaA = await liveGet(restUrl, "/access", a);
    assert.equal(viaA.status, 429);
    assert.equal((viaA.body.details as Record<string, unknown>).scope, "identity");
    // Another identity is not held back; its single key is refused past its own burst, as "key".
    const others = [];
    for (let i = 0; i < 5; i++) others.push(await liveGet(restUrl, "/access", other.access.seed));
    assert.deepEqual(
      others.map((r) => r.status),
      [200, 200, 200, 200, 429],
    );
    assert.deepEqual([(others[4]!.body.details as Record<string, unknown>).scope, others[4]!.retryAfter], ["key", "1"]);
    // Anonymous callers are refused by their address's bucket, named as such.
    const anonymous = [];
    for (let i = 0; i < 5; i++) anonymous.push(await liveGet(restUrl, "/health"));
    assert.deepEqual(
      anonymous.map((r) => r.status),
      [200, 200, 200, 200, 429],
    );
    assert.equal((anonymous[4]!.body.details as Record<string, unknown>).scope, "address");

    // JSON-RPC over HTTP, a second later: the identity has 2 tokens back, whichever key asks.
    now += 1000;
    assert.equal((await liveRpc(rpcUrl, a, "getAccess")).body.error, undefined);
    assert.equal((await liveRpc(rpcUrl, b, "getAccess")).body.error, undefined);
    const rpcLimited = await liveRpc(rpcUrl, b, "getAccess");
    assert.equal(rpcLimited.status, 429);
    const rpcError = rpcLimited.body.error as NonNullable<RpcAnswer["error"]>;
    assert.equal(rpcError.code, -32029);
    assert.deepEqual(
      [rpcError.data?.code, rpcError.data?.details?.reason, rpcError.data?.details?.scope],
      ["RATE_LIMITED", "rate_limited", "identity"],
    );
    assert.equal(rpcLimited.retryAfter, String(rpcError.data?.details?.retry_after));
    assert.equal((await liveRpc(rpcUrl, other.access.seed, "getAccess")).status, 200);

    // /ws, once every bucket is full again: one socket per key, each from its own address.
    now += 10_000;
    const sa = await liveSocket(rpcUrl, a, "127.0.0.2");
    const sb = await liveSocket(rpcUrl, b, "127.0.0.3");
    const so = await liveSocket(rpcUrl, other.access.seed, "127.0.0.4");
    try {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await sa.call("getAccess"));
      answers.push(await sb.call("getAccess"));
      assert.deepEqual(
        answers.map((x) => x.error),
        [undefined, undefined, undefined, undefined],
      );
      for (const refused of [await sb.call("getAccess"), await sa.call("getAccess")]) {
        assert.equal(refused.error?.code, -32029);
        const rd = refused.error?.data?.details;
        assert.deepEqual([rd?.reason, rd?.scope, rd?.limit, rd?.retry_after], ["rate_limited", "identity", 2, 1]);
      }
      assert.equal((await so.call("getAccess")).error, undefined);
    } finally {
      for (const s of [sa, sb, so]) s.close();
    }
  } finally {
    await close();
  }
});
