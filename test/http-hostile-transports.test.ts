/**
 * Hostile input at the transport edge, over real HTTP and WebSocket on loopback (real hub,
 * SQLite, ed25519): bytes that are not UTF-8 on every transport, the address rate limit of
 * requests carrying junk credentials, plain GETs of `/ws`, stalled bodies, requests Node's
 * parser refuses, binary frames and over-long query integers. Codes and reasons, not prose.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import http from "node:http";
import net from "node:net";
import { test } from "node:test";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { WebSocket } from "ws";
import { signRequest } from "../src/auth/signRequest.js";
import { buildRestApp } from "../src/http/buildRestApp.js";
import { buildRpcApp } from "../src/http/buildRpcApp.js";
import type { HttpOptions } from "../src/http/HttpOptions.js";
import { RateLimiter } from "../src/http/RateLimiter.js";
import { type TestApp, type TestAppOptions, testApp } from "./support/testApps.js";

interface Served {
  t: TestApp;
  /** The app listening (`t.app`, or one built with the adapter options given). */
  app: FastifyInstance;
  port: number;
}

/** An app of `kind` listening on loopback (built with `adapter` options over the test hub when given), closed after `fn`. */
async function served(
  kind: "rest" | "rpc",
  fn: (s: Served) => Promise<void>,
  options: TestAppOptions = {},
  adapter: Partial<HttpOptions> = {},
): Promise<void> {
  const t = await testApp(kind, options);
  const build = kind === "rest" ? buildRestApp : buildRpcApp;
  const app = Object.keys(adapter).length === 0 ? t.app : await build({ ...t.options, ...adapter });
  try {
    await app.listen({ port: 0, host: "127.0.0.1" });
    await fn({ t, app, port: (app.server.address() as { port: number }).port });
  } finally {
    if (app !== t.app) await app.close();
    await t.close();
  }
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: { code?: string; details?: Record<string, unknown>; error?: unknown } & Record<string, unknown>;
}

/** One HTTP request with an exact body (bytes as given), on its own connection. */
function request(
  port: number,
  method: string,
  path: string,
  body?: Buffer | string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json = {};
        try {
          json = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: json as Answer["json"] });
      });
    });
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Bytes written on a raw TCP connection; resolves with everything read until the hub closes it. */
function rawExchange(port: number, data: Buffer | string, waitMs = 5000): Promise<{ text: string; ms: number }> {
  return new Promise((resolve) => {
    const start = Date.now();
    const socket = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString("latin1"), ms: Date.now() - start });
    });
    socket.write(data);
  });
}

/** The status line and JSON body of a raw HTTP answer. */
function parseRaw(text: string): { status: number; json: Answer["json"] } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  const body = text.slice(text.indexOf("\r\n\r\n") + 4);
  let json = {};
  try {
    json = JSON.parse(body);
  } catch {}
  return { status, json: json as Answer["json"] };
}

/** A WebSocket whose messages are queued, so tests read them in order. */
async function socketTo(port: number) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  const queue: Record<string, unknown>[] = [];
  const waiters: ((m: Record<string, unknown>) => void)[] = [];
  ws.on("message", (data) => {
    const m = JSON.parse(String(data)) as Record<string, unknown>;
    const w = waiters.shift();
    if (w) w(m);
    else queue.push(m);
  });
  await once(ws, "open");
  const next = () =>
    new Promise<Record<string, unknown>>((resolve) =>
      queue.length > 0 ? resolve(queue.shift()!) : waiters.push(resolve),
    );
  await next(); // hello
  return { ws, next };
}

const NOT_UTF8 = Buffer.from([0xff, 0xc0]);

/** `prefix` + bytes that are not UTF-8 + `suffix`. */
const withBadBytes = (prefix: string, suffix: string) =>
  Buffer.concat([Buffer.from(prefix), NOT_UTF8, Buffer.from(suffix)]);

test("JSON-RPC over HTTP refuses a body that is not UTF-8 as -32700 body_not_utf8 and stores nothing", () =>
  served("rpc", async ({ t, port }) => {
    const { id } = await t.contract();
    const before = await t.hub.getState(t.owner.caller, id);
    const body = withBadBytes(
      `{"jsonrpc":"2.0","id":1,"method":"submitCommit","params":{"contract_id":"${id}","method":"post","path":"/n/x.text","value":"a`,
      '"}}',
    );
    const headers = {
      "content-type": "application/json",
      ...signRequest(t.owner.access.seed, { method: "POST", url: "/", body }),
    };
    const res = await request(port, "POST", "/", body, headers);
    const error = res.json.error as { code: number; data: { code: string; details: { reason: string } } };
    assert.equal(error.code, -32700);
    assert.equal(error.data.code, "INVALID_REQUEST");
    assert.equal(error.data.details.reason, "body_not_utf8");
    assert.equal((await t.hub.getState(t.owner.caller, id)).commit_count, before.commit_count);
  }));

test("REST refuses the same bytes with 400 body_not_utf8; a WebSocket text frame that is not UTF-8 closes with 1007", () =>
  served("rest", async ({ t, port }) => {
    const { id } = await t.contract();
    const url = `/contracts/${id}/commits`;
    const body = withBadBytes(`{"contract_id":"${id}","method":"post","path":"/n/x.text","value":"a`, '"}');
    const headers = {
      "content-type": "application/json",
      ...signRequest(t.owner.access.seed, { method: "POST", url, body }),
    };
    const res = await request(port, "POST", url, body, headers);
    assert.equal(res.status, 400);
    assert.equal(res.json.details?.reason, "body_not_utf8");
    const { ws } = await socketTo(port);
    const closed = once(ws, "close");
    ws.send(withBadBytes('{"jsonrpc":"2.0","id":1,"method":"getHealth","x":"', '"}'), { binary: false });
    const [code] = await closed;
    assert.equal(code, 1007);
    assert.equal((await t.hub.getState(t.owner.caller, id)).commit_count, 1);
  }));

test("junk X-Hub-* headers do not lift the address's rate limit on routes that never charge a key", () => {
  let now = 1_000_000;
  const rateLimiter = new RateLimiter(1, 2, () => now);
  return served(
    "rest",
    async ({ t, port }) => {
      const junk = { "x-hub-key": "ab".repeat(32), "content-type": "application/json" };
      const routes = t.app.registeredRoutes.filter((r) => r.auth === "none" && r.url !== "*");
      assert.ok(routes.some((r) => r.url === "/register" && r.method === "POST"));
      for (const route of routes) {
        now += 60_000; // a full bucket for each route
        const path = route.url.replace(":id", "escrow");
        const body = route.method === "POST" ? "{}" : undefined;
        const statuses = [];
        for (let i = 0; i < 3; i++) statuses.push((await request(port, route.method, path, body, junk)).status);
        assert.notEqual(statuses[1], 429, `${route.method} ${route.url}: ${statuses}`);
        assert.equal(statuses[2], 429, `${route.method} ${route.url}: ${statuses}`);
      }
      // A request that authenticates is charged to its key, not to the address.
      now += 60_000;
      for (let i = 0; i < 2; i++) assert.equal((await request(port, "GET", "/health")).status, 200);
      assert.equal((await t.signed({ method: "GET", url: "/access" })).statusCode, 200);
    },
    { rateLimiter },
  );
});

test("a plain GET /ws is 400 websocket_upgrade_required in the error table's form and holds no anonymous socket slot", () =>
  served(
    "rest",
    async ({ port }) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let i = 0; i < 5; i++) {
          const res = await new Promise<Answer>((resolve, reject) => {
            http
              .get({ host: "127.0.0.1", port, path: "/ws", agent }, (r) => {
                let text = "";
                r.on("data", (c) => (text += c));
                r.on("end", () =>
                  resolve({ status: r.statusCode ?? 0, headers: r.headers, text, json: JSON.parse(text) }),
                );
              })
              .on("error", reject);
          });
          assert.equal(res.status, 400);
          assert.equal(res.json.code, "INVALID_REQUEST");
          assert.equal(res.json.details?.reason, "websocket_upgrade_required");
          assert.equal(typeof res.json.error, "string");
        }
        // The keep-alive connection is still open, yet both real upgrades of the cap of 2 get in.
        const a = await socketTo(port);
        const b = await socketTo(port);
        const third = new WebSocket(`ws://127.0.0.1:${port}/ws`);
        const [, refused] = await once(third, "unexpected-response");
        assert.equal((refused as http.IncomingMessage).statusCode, 429);
        a.ws.close();
        b.ws.close();
      } finally {
        agent.destroy();
      }
    },
    {},
    { anonymousSockets: 2 },
  ));

test("a plain GET /ws on the JSON-RPC port answers a JSON-RPC error naming the missing upgrade", () =>
  served("rpc", async ({ port }) => {
    const res = await request(port, "GET", "/ws");
    assert.equal(res.status, 400);
    const error = res.json.error as { data: { code: string; details: { reason: string } } };
    assert.equal(error.data.code, "INVALID_REQUEST");
    assert.equal(error.data.details.reason, "websocket_upgrade_required");
  }));

/** Raw requests Node's parser refuses, each with the reason its answer must name. */
const MALFORMED: [string, string | Buffer, number, string][] = [
  ["bad request line", "GARBAGE\r\n\r\n", 400, "bad_request_line"],
  ["invalid header name", "GET /health HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n", 400, "bad_header"],
  [
    "non-numeric Content-Length",
    "POST /register HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n{}",
    400,
    "bad_content_length",
  ],
  [
    "Content-Length with Transfer-Encoding",
    "POST /register HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    400,
    "bad_transfer_encoding",
  ],
  [
    "raw byte 0x80 in the path",
    Buffer.concat([Buffer.from("GET /contracts/"), Buffer.from([0x80]), Buffer.from(" HTTP/1.1\r\nHost: x\r\n\r\n")]),
    400,
    "bad_request_line",
  ],
  ["20 KB URL", `GET /health?x=${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, "headers_too_large"],
  ["100 KB URL", `GET /health?x=${"a".repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, "headers_too_large"],
];

test("requests Node's parser refuses answer in the error table's form, naming the reason", { timeout: 60_000 }, () =>
  served("rest", async ({ port }) => {
    for (const [what, data, status, reason] of MALFORMED) {
      const { text } = await rawExchange(port, data);
      const answer = parseRaw(text);
      assert.equal(answer.status, status, `${what}: ${text.slice(0, 300)}`);
      assert.equal(typeof answer.json.error, "string", what);
      assert.equal(answer.json.code, status === 431 ? "PAYLOAD_TOO_LARGE" : "INVALID_REQUEST", what);
      assert.equal(answer.json.details?.reason, reason, what);
    }
    assert.equal((await request(port, "GET", "/health")).status, 200);
  }),
);

test(
  "a body or headers that stop part-way are cut off at the request timeout with 408 request_timeout",
  { timeout: 60_000 },
  () =>
    served(
      "rest",
      async ({ port }) => {
        const stalls = [
          "POST /register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
          "GET /health HTTP/1.1\r\nHost: x\r\n",
        ];
        for (const data of stalls) {
          const { text, ms } = await rawExchange(port, data, 20_000);
          assert.ok(ms < 8_000, `held ${ms} ms`);
          const answer = parseRaw(text);
          assert.equal(answer.status, 408, text.slice(0, 300));
          assert.equal(answer.json.details?.reason, "request_timeout");
        }
        assert.equal((await request(port, "GET", "/health")).status, 200);
      },
      {},
      { headersTimeoutMs: 500, requestTimeoutMs: 1_500 },
    ),
);

test("a binary frame is refused as -32600 binary_frame, whatever it holds; the socket stays usable", () =>
  served("rest", async ({ port }) => {
    const { ws, next } = await socketTo(port);
    ws.send(Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getHealth" })), { binary: true });
    const refused = (await next()) as {
      error?: { code: number; data?: { code: string; details?: { reason: string } } };
    };
    assert.equal(refused.error?.code, -32600);
    assert.equal(refused.error?.data?.code, "INVALID_REQUEST");
    assert.equal(refused.error?.data?.details?.reason, "binary_frame");
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "getHealth" }));
    assert.equal(((await next()) as { result?: { status: string } }).result?.status, "ok");
    ws.close();
  }));

test("clients' own failures (an aborted body, a frame not UTF-8, an oversized frame) are not logged as the hub's errors", () => {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino(
    { level: "debug" },
    { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) },
  );
  return served(
    "rest",
    async ({ port }) => {
      // Headers promising 100 bytes, one sent, then the connection is cut.
      const socket = net.connect(port, "127.0.0.1");
      await once(socket, "connect");
      socket.write(
        "POST /register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
      );
      await new Promise((r) => setTimeout(r, 200));
      socket.destroy();
      const bad = await socketTo(port);
      bad.ws.send(Buffer.concat([Buffer.from('"'), NOT_UTF8, Buffer.from('"')]), { binary: false });
      assert.equal((await once(bad.ws, "close"))[0], 1007);
      const big = await socketTo(port);
      big.ws.send("x".repeat(4096));
      assert.equal((await once(big.ws, "close"))[0], 1009);
      assert.equal((await request(port, "GET", "/health")).status, 200);
      await new Promise((r) => setTimeout(r, 200));
      const errors = lines.filter((l) => l.level >= 50);
      assert.deepEqual(errors, []);
      assert.ok(lines.some((l) => l.msg === "client error over /ws"));
    },
    {},
    { logger, limits: { pushBodyBytes: 2048 } },
  );
});

test("a query integer beyond 2^53 − 1 is refused quoting the text as sent", () =>
  served("rest", async ({ t, port }) => {
    const { id } = await t.contract();
    for (const text of ["9007199254740993", "9007199254740992"]) {
      const res = await request(port, "GET", `/contracts/${id}/log?offset=${text}`);
      assert.equal(res.status, 400);
      assert.equal(res.json.code, "INVALID_REQUEST");
      assert.equal(res.json.details?.field, "querystring/offset");
      assert.ok(String(res.json.error).includes(`"${text}"`), String(res.json.error));
    }
    assert.equal((await request(port, "GET", `/contracts/${id}/log?offset=9007199254740991`)).status, 200);
  }));
