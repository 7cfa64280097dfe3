/**
 * How the per-address limits count a client (PROTOCOL.md §18, docs/security.md "How a client
 * address is counted"): an IPv6 client counts as its /64 network, however its address is
 * spelled, and an IPv4 client reached through a dual-stack listener (`::ffff:127.0.0.1`) as
 * its IPv4 address. Over real HTTP on loopback. This machine's loopback holds one IPv6
 * address (::1), so addresses of one /64 reach the hub as a reverse proxy's
 * `X-Forwarded-For` (`trustProxy`); the loopback addresses themselves are the socket's.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { test } from "node:test";
import { WebSocket } from "ws";
import { registrationBody } from "../src/auth/signRequest.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { buildRestApp } from "../src/http/buildRestApp.js";
import { RateLimiter } from "../src/http/RateLimiter.js";
import { testApp } from "./support/testApps.js";

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

/** Sends one request to `url + path` from `from`, with `headers`; the answer's status and JSON body. */
function send(
  url: string,
  path: string,
  options: { method?: string; body?: unknown; from?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const text = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method: options.method ?? "GET",
        ...(options.from ? { localAddress: options.from } : {}),
        headers: { ...(text ? { "content-type": "application/json" } : {}), ...options.headers },
      },
      (res) => {
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (data += d));
        res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(data) }));
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

const forwardedFor = (address: string) => ({ "x-forwarded-for": address });
const detailsOf = (r: Reply) => (r.body.details ?? {}) as Record<string, unknown>;

test("anonymous requests from addresses of one IPv6 /64, however spelled, share one bucket; another /64 has its own", async () => {
  // Bursts of 2 and a pinned clock: the third request of one client is refused.
  const t = await testApp("rest", { rateLimiter: new RateLimiter(1, 2, () => 0), trustProxy: true });
  try {
    const url = await t.app.listen({ host: "127.0.0.1", port: 0 });
    const health = (address: string) => send(url, "/health", { headers: forwardedFor(address) });

    assert.equal((await health("2001:db8:1:2::1")).status, 200);
    assert.equal((await health("2001:DB8:1:2:0:0:0:ffff")).status, 200);
    const limited = await health("2001:0db8:0001:0002:abcd::9");
    assert.equal(limited.status, 429);
    assert.deepEqual([limited.body.code, detailsOf(limited).scope], ["RATE_LIMITED", "address"]);
    // The next /64 is another client.
    assert.equal((await health("2001:db8:1:3::1")).status, 200);
    assert.equal((await health("2001:db8:1:3:ffff::1")).status, 200);
    assert.equal((await health("2001:db8:1:3::2")).status, 429);

    // An IPv4 client is the same client in its IPv4-mapped spellings.
    assert.equal((await health("192.0.2.7")).status, 200);
    assert.equal((await health("::ffff:192.0.2.7")).status, 200);
    assert.equal((await health("0:0:0:0:0:FFFF:c000:0207")).status, 429);
    // IPv4 addresses are not grouped: its neighbour is another client.
    assert.equal((await health("192.0.2.8")).status, 200);
  } finally {
    await t.close();
  }
});

test("new identities are counted per IPv6 /64: the third from one /64 is 429 registration_limit, another /64 registers", async () => {
  const t = await testApp("rest", { registrationLimit: 2, trustProxy: true });
  try {
    const url = await t.app.listen({ host: "127.0.0.1", port: 0 });
    const register = (address: string) => {
      const body = registrationBody(generateKeyPair().seed, generateKeyPair().seed);
      return send(url, "/register", { method: "POST", body, headers: forwardedFor(address) });
    };
    assert.equal((await register("2001:db8:5:6::1")).status, 201);
    assert.equal((await register("2001:db8:5:6:1::2")).status, 201);
    const limited = await register("2001:db8:5:6:ffff:ffff:ffff:fffe");
    assert.equal(limited.status, 429);
    assert.deepEqual([limited.body.code, detailsOf(limited).reason], ["RATE_LIMITED", "registration_limit"]);
    assert.equal((await register("2001:db8:5:7::1")).status, 201);
  } finally {
    await t.close();
  }
});

/** Opens an anonymous WebSocket on `/ws` as `address`; its upgrade's status (101 when it opened). */
async function openSocket(url: string, address: string, open: WebSocket[]): Promise<number> {
  const ws = new WebSocket(`${url.replace("http", "ws")}/ws`, { headers: forwardedFor(address) });
  open.push(ws);
  return await new Promise<number>((resolve, reject) => {
    ws.once("open", () => resolve(101));
    ws.once("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
    });
    ws.once("error", reject);
  });
}

test("anonymous WebSocket connections are capped per IPv6 /64", async () => {
  const t = await testApp("rest", { anonymousSockets: 1, trustProxy: true });
  const open: WebSocket[] = [];
  try {
    const url = await t.app.listen({ host: "127.0.0.1", port: 0 });
    assert.equal(await openSocket(url, "2001:db8:9:9::1", open), 101);
    assert.equal(await openSocket(url, "2001:db8:9:9::2", open), 429);
    assert.equal(await openSocket(url, "2001:db8:9:a::1", open), 101);
  } finally {
    for (const ws of open) ws.terminate();
    await t.close();
  }
});

test("without a proxy: 127.0.0.1 is one client on an IPv4 and a dual-stack listener, and ::1 is limited on its own", async () => {
  const t = await testApp("rest", { rateLimiter: new RateLimiter(1, 2, () => 0) });
  // A second REST app on the same options shares their limiter, listening on every address.
  const dual = await buildRestApp(t.options);
  try {
    const v4Url = await t.app.listen({ host: "127.0.0.1", port: 0 });
    await dual.listen({ host: "::", port: 0 });
    const { port } = dual.server.address() as { port: number };
    const dualV4 = `http://127.0.0.1:${port}`;
    const dualV6 = `http://[::1]:${port}`;

    // The dual-stack listener sees 127.0.0.1 as ::ffff:127.0.0.1: still one bucket of 2.
    assert.equal((await send(v4Url, "/health", { from: "127.0.0.1" })).status, 200);
    assert.equal((await send(dualV4, "/health", { from: "127.0.0.1" })).status, 200);
    const limited = await send(dualV4, "/health", { from: "127.0.0.1" });
    assert.deepEqual([limited.status, detailsOf(limited).scope], [429, "address"]);
    assert.equal((await send(v4Url, "/health", { from: "127.0.0.1" })).status, 429);
    // Another IPv4 loopback address is another client.
    assert.equal((await send(v4Url, "/health", { from: "127.0.0.2" })).status, 200);

    // ::1 has a bucket of its own, and it is limited too.
    assert.equal((await send(dualV6, "/health", { from: "::1" })).status, 200);
    assert.equal((await send(dualV6, "/health", { from: "::1" })).status, 200);
    assert.equal((await send(dualV6, "/health", { from: "::1" })).status, 429);
  } finally {
    await dual.close();
    await t.close();
  }
});
