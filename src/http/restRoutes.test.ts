import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { REST_ROUTES } from "./restRoutes.js";
import { STUB_HASH } from "./testing/StubHub.js";
import { testApp } from "./testing/testApps.js";

const json = (body: string) => JSON.parse(body) as Record<string, unknown>;

/** A concrete URL of a route pattern. */
function urlOf(pattern: string, id = "abc"): string {
  return pattern.replace(":id", id).replace(":hash", STUB_HASH);
}

test("every GET route answers 200 from the hub through the route table", async () => {
  const t = await testApp();
  for (const route of REST_ROUTES.filter((r) => r.method === "GET" && !r.url.startsWith("/templates"))) {
    const res =
      route.auth === "required"
        ? await t.signed({ method: "GET", url: urlOf(route.url) })
        : await t.app.inject({ url: urlOf(route.url) });
    const expected = route.url.endsWith("/assets") ? 503 : 200;
    assert.equal(res.statusCode, expected, `${route.url}: ${res.body}`);
  }
});

test("query parameters reach the hub as integers", async () => {
  const t = await testApp();
  const res = await t.app.inject({ url: "/contracts/abc/log?limit=5&offset=2" });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(t.hub.last("getLog")?.args, ["abc", { limit: 5, offset: 2 }]);
});

test("bad query, path and hash parameters are 400 naming the field", async () => {
  const t = await testApp();
  for (const [url, field] of [
    ["/contracts/abc/log?limit=-1", "querystring/limit"],
    ["/contracts/abc/log?limit=1.5", "querystring/limit"],
    ["/contracts/abc/log?limit=1001", "querystring/limit"],
    ["/contracts/abc/log?offset=x", "querystring/offset"],
    ["/contracts/a$b", "params/id"],
    [`/contracts/${"x".repeat(65)}`, "params/id"],
    [`/contracts/abc/commits/${"A".repeat(64)}`, "params/hash"],
    ["/contracts/abc/commits/abc", "params/hash"],
    ["/contracts/abc/pull?since=zz", "querystring/since"],
  ] as const) {
    const res = await t.app.inject({ url });
    assert.equal(res.statusCode, 400, url);
    const body = json(res.body);
    assert.equal(body.code, "INVALID_REQUEST");
    assert.equal((body.details as Record<string, unknown>).field, field, url);
  }
});

test("an unknown contract is 404 NOT_FOUND and an unexpected throw is 500 INTERNAL without its message", async () => {
  const t = await testApp();
  const missing = await t.app.inject({ url: "/contracts/missing" });
  assert.equal(missing.statusCode, 404);
  assert.equal(json(missing.body).code, "NOT_FOUND");
  const boom = await t.app.inject({ url: "/contracts/explode/state" });
  assert.equal(boom.statusCode, 500);
  assert.deepEqual(json(boom.body), { error: "Internal error", code: "INTERNAL" });
  const noRoute = await t.app.inject({ url: "/no/such/route" });
  assert.equal(noRoute.statusCode, 404);
  assert.equal(json(noRoute.body).code, "NOT_FOUND");
});

test("every POST route answers malformed JSON with 400 json_syntax, never 500", async () => {
  const t = await testApp();
  for (const route of REST_ROUTES.filter((r) => r.method === "POST")) {
    for (const raw of ['{"a":', "{bad", "[1,]", '"\\x"']) {
      const res = await t.signed({ method: "POST", url: urlOf(route.url), raw });
      assert.equal(res.statusCode, 400, `${route.url} ${raw}`);
      assert.equal((json(res.body).details as Record<string, unknown>).reason, "json_syntax");
    }
  }
});

test("hardened parsing: depth, big integers, __proto__, invalid UTF-8 and empty bodies are 400", async () => {
  const t = await testApp();
  const cases: [string | Buffer, string][] = [
    ["[".repeat(100) + "]".repeat(100), "json_too_deep"],
    ['{"identity_pubkey": 12345678901234567890}', "integer_out_of_range"],
    ['{"__proto__": {"x": 1}}', "forbidden_key"],
    [Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), "body_not_utf8"],
    ["", "schema"],
  ];
  for (const [payload, reason] of cases) {
    const res = await t.app.inject({
      method: "POST",
      url: "/register",
      payload,
      headers: { "content-type": "application/json" },
    });
    assert.equal(res.statusCode, 400, reason);
    assert.equal((json(res.body).details as Record<string, unknown>).reason, reason);
  }
});

test("wrong types in bodies are 400 naming the field", async () => {
  const t = await testApp();
  const cases: [string, unknown, string][] = [
    ["/contracts", { rules: "not a list" }, "body/rules"],
    ["/contracts/abc/commits", { action_labels: [1] }, "body/action_labels/0"],
    ["/contracts/abc/commits", { signatures: { "/users/a.id": 5 } }, "body/signatures/~1users~1a.id"],
    ["/contracts/abc/push", { commits: {} }, "body/commits"],
    [
      "/contracts/abc/push",
      { commits: [{ hash: 1, parent: null, data: [], head: { parent: null, signatures: {} } }] },
      "body/commits/0/hash",
    ],
    ["/contracts/abc/push", { commits: [{ parent: null }] }, "body/commits/0/hash"],
    ["/contracts/abc/grant", { identity: "x", role: "admin" }, "body/role"],
    ["/contracts/abc/push", [], "body"],
  ];
  for (const [url, body, field] of cases) {
    const res = await t.signed({ method: "POST", url, body });
    assert.equal(res.statusCode, 400, `${url} ${res.body}`);
    const details = json(res.body).details as Record<string, unknown>;
    assert.equal(details.field, field);
  }
});

test("bodies over the limit are 413 naming the limit; push has its own larger limit", async () => {
  const t = await testApp("rest", { limits: { bodyBytes: 1000, pushBodyBytes: 5000 } });
  const big = JSON.stringify({ description: "x".repeat(2000) });
  const res = await t.app.inject({
    method: "POST",
    url: "/contracts/synthesize",
    payload: big,
    headers: { "content-type": "application/json" },
  });
  assert.equal(res.statusCode, 413);
  assert.equal(json(res.body).code, "PAYLOAD_TOO_LARGE");
  assert.equal((json(res.body).details as Record<string, unknown>).limit, 1000);

  const commit = {
    hash: STUB_HASH,
    parent: null,
    data: [{ method: "post", path: "/a.text", value: "y".repeat(1500) }],
    head: { parent: null, signatures: {} },
  };
  const ok = await t.signed({ method: "POST", url: "/contracts/abc/push", body: { commits: [commit] } });
  assert.equal(ok.statusCode, 200, ok.body);
  const tooBig = await t.signed({
    method: "POST",
    url: "/contracts/abc/push",
    body: { commits: [commit, commit, commit, commit] },
  });
  assert.equal(tooBig.statusCode, 413);
  assert.equal((json(tooBig.body).details as Record<string, unknown>).limit, 5000);
});

test("submit answers 201 for a new commit and 200 for an idempotent re-send", async () => {
  const t = await testApp();
  const created = await t.signed({
    method: "POST",
    url: "/contracts/abc/commits",
    body: { method: "post", path: "/a.text", value: "x" },
  });
  assert.equal(created.statusCode, 201);
  assert.equal(json(created.body).commit_hash, STUB_HASH);
  const again = await t.signed({ method: "POST", url: "/contracts/abc/commits", body: { parent: STUB_HASH } });
  assert.equal(again.statusCode, 200);
  assert.equal(t.hub.last("submitCommit")?.caller?.identity, t.identity.publicKey.toString("hex"));
});

test("pull streams every commit, and with a limit says has_more", async () => {
  const t = await testApp();
  t.hub.pullSize = 500;
  const all = json((await t.app.inject({ url: "/contracts/abc/pull" })).body);
  assert.equal((all.commits as unknown[]).length, 500);
  assert.equal(all.has_more, undefined);
  const some = json((await t.app.inject({ url: `/contracts/abc/pull?limit=2&since=${STUB_HASH}` })).body);
  assert.equal((some.commits as unknown[]).length, 2);
  assert.equal(some.has_more, true);
  assert.deepEqual(t.hub.last("pullStream")?.args, ["abc", { since: STUB_HASH, limit: 2 }]);
  const missing = await t.app.inject({ url: "/contracts/missing/pull" });
  assert.equal(missing.statusCode, 404);
});

test("/openapi.json documents every route of the table", async () => {
  const t = await testApp();
  const doc = json((await t.app.inject({ url: "/openapi.json" })).body);
  const paths = doc.paths as Record<string, Record<string, unknown>>;
  for (const route of REST_ROUTES) {
    const path = route.url.replace(/:(\w+)/g, "{$1}");
    assert.ok(paths[path]?.[route.method.toLowerCase()], `${route.method} ${route.url}`);
  }
});

test("an optional operation the hub lacks is 503 UNAVAILABLE", async () => {
  const t = await testApp();
  const res = await t.app.inject({ url: "/templates" });
  assert.equal(res.statusCode, 503);
  assert.equal(json(res.body).code, "UNAVAILABLE");
});

test("property: arbitrary bodies on every POST route never produce a 5xx", async () => {
  const t = await testApp();
  const posts = REST_ROUTES.filter((r) => r.method === "POST");
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...posts),
      fc.oneof(
        fc.json(),
        fc.string(),
        fc.jsonValue().map((v) => JSON.stringify(v)),
      ),
      async (route, raw) => {
        const res = await t.signed({ method: "POST", url: urlOf(route.url), raw });
        assert.ok(res.statusCode < 500, `${route.url} ${raw} -> ${res.statusCode} ${res.body}`);
        assert.equal(typeof json(res.body).code === "string" || res.statusCode < 300, true);
      },
    ),
    { numRuns: 300 },
  );
});
