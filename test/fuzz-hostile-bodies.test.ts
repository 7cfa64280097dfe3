/**
 * Seeded fuzzing of every REST route and every JSON-RPC method with hostile bodies (anchors
 * B.2 #4): deep nesting, huge numbers, `__proto__`/`constructor` keys (also spelled with
 * unicode escapes), wrong types, bad UTF-8 bytes, truncated bodies, huge strings, duplicate
 * keys. Each answer is a documented status with an error body, never a 5xx (the one
 * documented 503 is synthesis without a model key), and a refused request stores nothing:
 * the heads and lengths of every contract and the contract count are unchanged. A duplicate
 * member name planted in any object of a body (plain or unicode-escaped) is always
 * `duplicate_key`: REST 400, JSON-RPC -32700. Over /ws, hostile `subscribe`/`unsubscribe`/
 * `authenticate` frames (`since` of every shape) answer a documented error and leave the
 * socket usable.
 * FUZZ_RUNS (inputs per transport) and FUZZ_SEED replay a run; the seed is printed.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import fc from "fast-check";
import type { FastifyInstance } from "fastify";
import { WebSocket } from "ws";
import { registrationBody, signRequest } from "../src/auth/signRequest.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { buildRpcApp } from "../src/http/buildRpcApp.js";
import { REST_ROUTES } from "../src/http/restRoutes.js";
import { RPC_METHODS } from "../src/http/rpcMethods.js";
import { objectCount, withDuplicate } from "./support/duplicateJson.js";
import { genesisFor, postsAfter, type TestApp, testApp } from "./support/testApps.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const LIMITS = { bodyBytes: 64 * 1024, pushBodyBytes: 256 * 1024 };
const REST_STATUSES = new Set([200, 201, 400, 401, 403, 404, 409, 413, 422]);
const RPC_CODES = new Set([-32700, -32600, -32601, -32602, -32001, -32003, -32004, -32005, -32009, -32013, -32053]);

let t: TestApp;
let rpcApp: FastifyInstance;
let id: string;
let head: string;
let inputs = 0;
/** What the inputs were answered with (printed, so a run shows which refusals it reached). */
const seen = new Map<string, number>();
const count = (k: string) => seen.set(k, (seen.get(k) ?? 0) + 1);

before(async () => {
  t = await testApp("rest", { limits: LIMITS });
  rpcApp = await buildRpcApp(t.options);
  await rpcApp.ready();
  ({ id, head } = await t.contract({ model: null, rules: [], state: { "/users/a.id": t.owner.key } }));
  await t.contract({ contract_id: "hidden", model: null, rules: [], readers: [] });
  await t.hub.push(t.owner.caller, id, { commits: postsAfter(id, head, 2) });
  console.log(`fuzz seed ${SEED} (FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} to replay)`);
});
after(async () => {
  console.log(`fuzz: ${inputs} generated inputs in total`);
  console.log(`fuzz answers: ${JSON.stringify(Object.fromEntries([...seen].sort()))}`);
  await rpcApp.close();
  await t.close();
});

/** Every contract's head and length, and how many there are. */
async function snapshot(): Promise<string> {
  const { contracts, total } = await t.hub.store.listContracts({ identity: t.owner.key, limit: 10_000, offset: 0 });
  return JSON.stringify([total, contracts.map((c) => [c.id, c.head, c.length])]);
}

/** A plausible body of each route and method, which the mutations below break. */
function baseBody(name: string): Record<string, unknown> {
  const keys = registrationBody(generateKeyPair().seed, generateKeyPair().seed);
  const [next] = postsAfter(id, "0".repeat(64), 1);
  const bodies: Record<string, Record<string, unknown>> = {
    "/contracts": { model: "model M { initial a\n a -> b [+GO] }", rules: [], readers: [t.owner.key] },
    "/contracts/synthesize": { description: "an escrow between a buyer and a seller", pattern_hint: "escrow" },
    "/contracts/:id/commits": { method: "post", path: "/a.text", value: "v", signatures: {}, parent: head },
    "/contracts/:id/push": { commits: [genesisFor("fresh", t.owner), next] },
    "/contracts/:id/grant": { identity: t.owner.key, role: "reader" },
    "/register": keys,
    "/access/revoke": { access_key: t.owner.access.publicKey.toString("hex"), identity_pubkey: t.owner.key },
    subscribe: { since: 1 },
    unsubscribe: { subscription: "s1" },
    authenticate: { key: t.owner.access.publicKey.toString("hex"), signature: "00".repeat(64) },
  };
  return { contract_id: id, hash: head, limit: 5, ...(bodies[name] ?? {}) };
}

const hostileKey = fc.constantFrom(
  "__proto__",
  "constructor",
  "prototype",
  "__defineGetter__",
  "toString",
  "hasOwnProperty",
);
const hugeNumber = fc.constantFrom(
  "1e400",
  "-1e400",
  "123456789012345678901234567890",
  "-0",
  "1e-400",
  "0.1e99999",
  "9007199254740993",
);
const hostileString = fc.oneof(
  fc.constantFrom("\u0000", "\ud800", "\udfff", "\u202e", "\ufeff", "%00", "../../etc/passwd", "ed25519:", "0x00"),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.integer({ min: 1, max: 100_000 }).map((n) => "x".repeat(n)),
);
const wrongType = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  hostileString,
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
);

/** A hostile raw body derived from `base` (bytes, since some are not UTF-8). */
function hostile(base: Record<string, unknown>): fc.Arbitrary<Buffer> {
  const text = JSON.stringify(base);
  const keys = Object.keys(base);
  const field = fc.constantFrom(...keys);
  const utf8 = (s: string) => Buffer.from(s, "utf8");
  return fc.oneof(
    // Deep nesting, in an array or under a real field.
    fc.integer({ min: 30, max: 5000 }).map((n) => utf8("[".repeat(n) + "]".repeat(n))),
    fc
      .tuple(field, fc.integer({ min: 30, max: 2000 }))
      .map(([k, n]) => utf8(text.replace(`"${k}":`, `"${k}":${'{"a":'.repeat(n)}1${"}".repeat(n)},"_":`))),
    // Huge or odd numbers where a field is.
    fc.tuple(field, hugeNumber).map(([k, n]) => utf8(text.replace(`"${k}":`, `"${k}":${n},"_":`))),
    // Prototype keys, plain or spelled with unicode escapes, at the top or nested.
    fc.tuple(hostileKey, fc.boolean(), fc.jsonValue({ maxDepth: 2 })).map(([k, escaped, v]) => {
      const name = escaped ? k.replace(/_/g, "\\u005f").replace(/o/g, "\\u006f") : k;
      return utf8(`{"${name}":${JSON.stringify(v)},${text.slice(1)}`);
    }),
    fc
      .tuple(field, hostileKey)
      .map(([k, p]) => utf8(text.replace(`"${k}":`, `"${k}":{"${p}":{"polluted":true}},"_":`))),
    // Wrong types for each field.
    fc.tuple(field, wrongType).map(([k, v]) => utf8(JSON.stringify({ ...base, [k]: v }))),
    // Bytes that are not UTF-8 inside a string value.
    fc
      .tuple(
        fc.constantFrom([0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]),
        field,
      )
      .map(([bad, k]) => Buffer.concat([utf8(`{"${k}":"`), Buffer.from(bad), utf8(`",${text.slice(1)}`)])),
    // Truncated at any byte.
    fc.integer({ min: 0, max: Math.max(0, text.length - 1) }).map((n) => utf8(text.slice(0, n))),
    // Huge strings: around and over the body limit.
    fc
      .tuple(field, fc.constantFrom(LIMITS.bodyBytes - 200, LIMITS.bodyBytes + 10, LIMITS.pushBodyBytes + 10))
      .map(([k, n]) => utf8(JSON.stringify({ ...base, [k]: "y".repeat(n) }))),
    // Duplicate keys: a valid value first, a hostile one last (or the reverse).
    fc.tuple(field, wrongType, fc.boolean()).map(([k, v, last]) => {
      const dup = `"${k}":${JSON.stringify(v)}`;
      return utf8(last ? `${text.slice(0, -1)},${dup}}` : `{${dup},${text.slice(1)}`);
    }),
    // Unicode escapes of every kind in a string value.
    fc
      .tuple(field, fc.constantFrom("\\u0000", "\\ud800", "\\udc00\\ud800", "\\u202e", "\\uffff", "\\uD83D\\uDE00"))
      .map(([k, e]) => utf8(text.replace(`"${k}":`, `"${k}":"${e}","_":`))),
    // Arbitrary JSON of any shape.
    fc.jsonValue({ maxDepth: 4 }).map((v) => utf8(JSON.stringify(v))),
  );
}

const urlOf = (pattern: string) => pattern.replace(":id", id).replace(":hash", head);

/** Every UTF-8 byte of `v` percent-encoded (lone surrogates become U+FFFD, as on the wire). */
const percentEncoded = (v: string) =>
  [...Buffer.from(v, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");

/** Hostile query strings for the GET routes (they have no body): odd numbers, prototype keys, bad escapes. */
const hostileQuery = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom("limit", "offset", "since", "hash"), hostileKey),
      fc.oneof(
        hugeNumber,
        hostileString.map((v) => percentEncoded(v.slice(0, 2000))),
        fc.constantFrom("%ff", "%c0%80", "%ed%a0%80", "%", "%zz", "-1", "1.5", "0x10", "[]", "a&b"),
      ),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${v}`).join("&")}`);

test("REST: hostile bodies on every route answer a documented 4xx (or success) and a refusal stores nothing", async () => {
  const routes = REST_ROUTES.map((r) => ({ route: r, gen: hostile(baseBody(r.url)) }));
  const arb = fc
    .integer({ min: 0, max: routes.length - 1 })
    .chain((i) => fc.tuple(fc.constant(routes[i]!.route), routes[i]!.gen, fc.boolean(), hostileQuery));
  await fc.assert(
    fc.asyncProperty(arb, async ([route, raw, sign, query]) => {
      inputs++;
      const before = await snapshot();
      const url = urlOf(route.url) + (route.method === "GET" ? query : "");
      const method = route.method;
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (sign) Object.assign(headers, signRequest(t.owner.access.seed, { method, url, body: raw }));
      const res = await t.app.inject({ method, url, headers, ...(method === "POST" ? { payload: raw } : {}) });
      count(`REST ${res.statusCode}`);
      const synthesisUnavailable = route.url === "/contracts/synthesize" && res.statusCode === 503;
      assert.ok(
        REST_STATUSES.has(res.statusCode) || synthesisUnavailable,
        `${method} ${url} -> ${res.statusCode} ${res.body.slice(0, 300)}`,
      );
      if (res.statusCode >= 400) {
        const body = JSON.parse(res.body) as { code: unknown; error: unknown };
        assert.equal(typeof body.code, "string");
        assert.equal(typeof body.error, "string");
        assert.equal(
          await snapshot(),
          before,
          `${method} ${url} was refused (${res.statusCode}) but changed the store`,
        );
      }
      assert.equal(({} as Record<string, unknown>).polluted, undefined, "Object.prototype was polluted");
    }),
    { numRuns: RUNS, seed: SEED },
  );
});

test("JSON-RPC: hostile params on every method answer a documented error per item and a refusal stores nothing", async () => {
  const names = Object.keys(RPC_METHODS);
  const restName: Record<string, string> = {
    createContract: "/contracts",
    synthesize: "/contracts/synthesize",
    submitCommit: "/contracts/:id/commits",
    push: "/contracts/:id/push",
    grant: "/contracts/:id/grant",
    register: "/register",
    revokeAccess: "/access/revoke",
  };
  const arb = fc
    .constantFrom(...names)
    .chain((m) =>
      fc.tuple(fc.constant(m), hostile(baseBody(restName[m] ?? m)), fc.constantFrom("single", "batch", "bare")),
    );
  await fc.assert(
    fc.asyncProperty(arb, async ([method, params, shape]) => {
      inputs++;
      const before = await snapshot();
      const p = params.toString("latin1");
      // The hostile bytes as params of one call, of a batch of two, or as the whole request.
      const one = Buffer.concat([
        Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"${method}","params":`),
        params,
        Buffer.from("}"),
      ]);
      const raw =
        shape === "single"
          ? one
          : shape === "batch"
            ? Buffer.concat([Buffer.from("["), one, Buffer.from(`,{"jsonrpc":"2.0","id":2,"method":"getHealth"}]`)])
            : params;
      const headers = {
        "content-type": "application/json",
        ...signRequest(t.owner.access.seed, { method: "POST", url: "/", body: raw }),
      };
      const res = await rpcApp.inject({ method: "POST", url: "/", headers, payload: raw });
      assert.ok(
        [200, 204, 413].includes(res.statusCode),
        `${method} -> ${res.statusCode} ${res.body.slice(0, 300)} (${p.slice(0, 80)})`,
      );
      if (res.statusCode === 204) return;
      const answer = JSON.parse(res.body) as unknown;
      const items = (Array.isArray(answer) ? answer : [answer]) as {
        id?: unknown;
        result?: unknown;
        error?: { code: number; data?: { code: string } };
      }[];
      for (const item of items) {
        count(`RPC ${item.error?.code ?? "result"}`);
        if (item.error === undefined) continue;
        const unavailable = method === "synthesize" && item.error.code === -32053;
        // -32010 and below are the asset and REPOST codes of VALIDATION_FAILED (PROTOCOL.md §4).
        const documented =
          RPC_CODES.has(item.error.code) || unavailable || (item.error.code <= -32010 && item.error.code >= -32099);
        assert.ok(documented, `${method}: ${JSON.stringify(item.error)}`);
      }
      // Only an answered call (not the getHealth of the batch) may have stored anything.
      const succeeded = items.some((i) => i.error === undefined && i.id !== 2);
      if (!succeeded) assert.equal(await snapshot(), before, `${method} was refused but changed the store`);
      assert.equal(({} as Record<string, unknown>).polluted, undefined, "Object.prototype was polluted");
    }),
    { numRuns: RUNS, seed: SEED },
  );
});

test("duplicate member names at any depth: REST 400 and JSON-RPC -32700, both duplicate_key, nothing stored", async () => {
  const routes = REST_ROUTES.filter((r) => r.method === "POST");
  const rpcName: Record<string, string> = {
    "/contracts": "createContract",
    "/contracts/synthesize": "synthesize",
    "/contracts/:id/commits": "submitCommit",
    "/contracts/:id/push": "push",
    "/contracts/:id/grant": "grant",
    "/register": "register",
    "/access/revoke": "revokeAccess",
  };
  const arb = fc.record({
    route: fc.constantFrom(...routes),
    target: fc.nat(),
    escaped: fc.boolean(),
    extra: fc.jsonValue({ maxDepth: 2 }),
    pick: fc.nat(),
  });
  await fc.assert(
    fc.asyncProperty(arb, async ({ route, target, escaped, extra, pick }) => {
      inputs++;
      const before = await snapshot();
      const body = baseBody(route.url);
      const rest = withDuplicate(body, target % objectCount(body), { escape: escaped, extra, pick });
      const url = urlOf(route.url);
      const headers = {
        "content-type": "application/json",
        ...signRequest(t.owner.access.seed, { method: "POST", url, body: rest.text }),
      };
      const res = await t.app.inject({ method: "POST", url, headers, payload: rest.text });
      count(`REST duplicate ${res.statusCode}`);
      assert.equal(res.statusCode, 400, `${url} ${rest.text.slice(0, 300)} -> ${res.body.slice(0, 300)}`);
      const answer = JSON.parse(res.body) as { code: string; details?: { reason?: string; key?: string } };
      assert.equal(answer.code, "INVALID_REQUEST");
      assert.equal(answer.details?.reason, "duplicate_key");
      assert.equal(answer.details?.key, rest.name);

      const request = { jsonrpc: "2.0", id: 1, method: rpcName[route.url] ?? "getHealth", params: body };
      const rpc = withDuplicate(request, target % objectCount(request), { escape: escaped, extra, pick });
      const rpcHeaders = {
        "content-type": "application/json",
        ...signRequest(t.owner.access.seed, { method: "POST", url: "/", body: rpc.text }),
      };
      const rpcRes = await rpcApp.inject({ method: "POST", url: "/", headers: rpcHeaders, payload: rpc.text });
      const error = (JSON.parse(rpcRes.body) as { error?: { code: number; data?: { details?: { reason?: string } } } })
        .error;
      count(`RPC duplicate ${error?.code}`);
      assert.equal(error?.code, -32700, rpc.text.slice(0, 300));
      assert.equal(error?.data?.details?.reason, "duplicate_key");
      assert.equal(await snapshot(), before, `a duplicate-key body changed the store`);
    }),
    { numRuns: Math.max(50, Math.floor(RUNS / 4)), seed: SEED },
  );
});

test("WebSocket: hostile subscribe, unsubscribe and authenticate frames answer a documented error; the socket stays usable", async () => {
  const url = await t.app.listen({ host: "127.0.0.1", port: 0 });
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws`);
  const answers = new Map<number, (msg: Record<string, unknown>) => void>();
  let closed = false;
  ws.on("close", () => {
    closed = true;
  });
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data)) as Record<string, unknown>;
    // An unparsable frame is answered with id null: it answers the call in flight.
    const waiting =
      typeof msg.id === "number" ? answers.get(msg.id) : msg.id === null ? [...answers.values()][0] : undefined;
    if (waiting) waiting(msg);
  });
  await new Promise((r) => ws.once("message", r));
  let next = 1;
  const call = (frame: Buffer, id: number) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to frame ${id}`)), 10_000);
      answers.set(id, (msg) => {
        clearTimeout(timer);
        answers.delete(id);
        resolve(msg);
      });
      // As a text frame (the WebSocket layer itself refuses text that is not UTF-8).
      ws.send(frame.toString("utf8"));
    });
  const arb = fc
    .constantFrom("subscribe", "unsubscribe", "authenticate")
    .chain((m) => fc.tuple(fc.constant(m), hostile(baseBody(m))));
  try {
    await fc.assert(
      fc.asyncProperty(arb, async ([method, params]) => {
        inputs++;
        const callId = next++;
        const frame = Buffer.concat([
          Buffer.from(`{"jsonrpc":"2.0","id":${callId},"method":"${method}","params":`),
          params,
          Buffer.from("}"),
        ]);
        // A frame over the WebSocket size limit closes the connection by design (docs/api.md).
        if (Buffer.byteLength(frame.toString("utf8")) > LIMITS.pushBodyBytes) return;
        const answer = await call(frame, callId);
        const error = answer.error as { code: number } | undefined;
        count(`WS ${error?.code ?? "result"}`);
        if (error !== undefined) assert.ok(RPC_CODES.has(error.code), `${method}: ${JSON.stringify(error)}`);
        const probeId = next++;
        const probe = Buffer.from(`{"jsonrpc":"2.0","id":${probeId},"method":"getHealth"}`);
        const health = await call(probe, probeId);
        assert.equal((health.result as { status?: string } | undefined)?.status, "ok");
        assert.equal(closed, false);
      }),
      { numRuns: Math.ceil(RUNS / 8), seed: SEED },
    );
  } finally {
    ws.close();
  }
});
