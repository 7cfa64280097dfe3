import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { genesisFor, postsAfter, type TestApp, testApp } from "../../test/support/testApps.js";
import { REST_ROUTES } from "./restRoutes.js";

const json = (body: string) => JSON.parse(body) as Record<string, unknown>;
const details = (body: string) => json(body).details as Record<string, unknown>;

/** A concrete URL of a route pattern. */
function urlOf(pattern: string, id: string, hash = "0".repeat(64)): string {
  return pattern.replace(":id", id).replace(":hash", hash);
}

describe("REST routes over a real hub", () => {
  let t: TestApp;
  let id: string;
  let genesis: string;
  before(async () => {
    t = await testApp();
    ({ id, head: genesis } = await t.contract());
    const pushed = await t.signed({
      method: "POST",
      url: `/contracts/${id}/push`,
      body: { commits: postsAfter(id, genesis, 3) },
    });
    assert.equal(pushed.statusCode, 200, pushed.body);
  });
  after(() => t.close());

  test("every GET route of the table answers 200 for a stored contract and commit", async () => {
    // A proposal's own route needs a stored proposal: test/proposals-routes.test.ts covers it.
    for (const route of REST_ROUTES.filter((r) => r.method === "GET" && !r.url.includes("/proposals/"))) {
      // The proof routes' required query parameters.
      const query = { "/proofs/inclusion": `?hash=${genesis}`, "/proofs/consistency": "?from=1" }[route.url] ?? "";
      const url = urlOf(route.url, route.url.startsWith("/templates") ? "escrow" : id, genesis) + query;
      const res = route.auth === "required" ? await t.signed({ method: "GET", url }) : await t.app.inject({ url });
      assert.equal(res.statusCode, 200, `${route.url}: ${res.body}`);
    }
  });

  test("query parameters reach the hub as integers", async () => {
    const res = await t.app.inject({ url: `/contracts/${id}/log?limit=2&offset=1` });
    assert.equal(res.statusCode, 200);
    const body = json(res.body) as { commits: { index: number }[]; total: number };
    assert.deepEqual(
      body.commits.map((c) => c.index),
      [1, 2],
    );
    assert.equal(body.total, 4);
  });

  test("bad query, path and hash parameters are 400 naming the field", async () => {
    for (const [url, field] of [
      [`/contracts/${id}/log?limit=-1`, "querystring/limit"],
      [`/contracts/${id}/log?limit=1.5`, "querystring/limit"],
      [`/contracts/${id}/log?limit=1001`, "querystring/limit"],
      [`/contracts/${id}/log?offset=x`, "querystring/offset"],
      ["/contracts/a$b", "params/id"],
      [`/contracts/${"x".repeat(65)}`, "params/id"],
      [`/contracts/${id}/commits/${"A".repeat(64)}`, "params/hash"],
      [`/contracts/${id}/commits/abc`, "params/hash"],
      [`/contracts/${id}/pull?since=zz`, "querystring/since"],
    ] as const) {
      const res = await t.app.inject({ url });
      assert.equal(res.statusCode, 400, url);
      assert.equal(json(res.body).code, "INVALID_REQUEST");
      assert.equal(details(res.body).field, field, url);
    }
  });

  test("unknown contracts, commits and routes are 404 NOT_FOUND", async () => {
    for (const url of ["/contracts/missing", `/contracts/${id}/commits/${"0".repeat(64)}`, "/no/such/route"]) {
      const res = await t.app.inject({ url });
      assert.equal(res.statusCode, 404, url);
      assert.equal(json(res.body).code, "NOT_FOUND");
    }
  });

  test("every POST route answers malformed JSON with 400 json_syntax, never 500", async () => {
    for (const route of REST_ROUTES.filter((r) => r.method === "POST")) {
      for (const raw of ['{"a":', "{bad", "[1,]", '"\\x"']) {
        const res = await t.signed({ method: "POST", url: urlOf(route.url, id), raw });
        assert.equal(res.statusCode, 400, `${route.url} ${raw}`);
        assert.equal(details(res.body).reason, "json_syntax");
      }
    }
  });

  test("hardened parsing: depth, big integers, __proto__, invalid UTF-8 and empty bodies are 400", async () => {
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
      assert.equal(details(res.body).reason, reason);
    }
  });

  test("wrong types in bodies are 400 naming the field", async () => {
    const cases: [string, unknown, string][] = [
      ["/contracts", { rules: "not a list" }, "body/rules"],
      [`/contracts/${id}/commits`, { action_labels: [1] }, "body/action_labels/0"],
      [`/contracts/${id}/commits`, { signatures: { "/users/a.id": 5 } }, "body/signatures/~1users~1a.id"],
      [`/contracts/${id}/push`, { commits: {} }, "body/commits"],
      [
        `/contracts/${id}/push`,
        { commits: [{ hash: 1, parent: null, data: [], head: { parent: null, signatures: {} } }] },
        "body/commits/0/hash",
      ],
      [`/contracts/${id}/push`, { commits: [{ parent: null }] }, "body/commits/0/hash"],
      [`/contracts/${id}/grant`, { identity: "x", role: "admin" }, "body/role"],
      [`/contracts/${id}/push`, [], "body"],
    ];
    for (const [url, body, field] of cases) {
      const res = await t.signed({ method: "POST", url, body });
      assert.equal(res.statusCode, 400, `${url} ${res.body}`);
      assert.equal(details(res.body).field, field);
    }
  });

  test("submit answers 201 for a new commit and 200 for an idempotent re-send of the head", async () => {
    const { id: c, head } = await t.contract();
    const [commit] = postsAfter(c, head, 1);
    const created = await t.signed({ method: "POST", url: `/contracts/${c}/commits`, body: { commit } });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(json(created.body).commit_hash, commit!.hash);
    const again = await t.signed({ method: "POST", url: `/contracts/${c}/commits`, body: { commit } });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(json(again.body).index, 1);
    const log = json((await t.app.inject({ url: `/contracts/${c}/log` })).body);
    assert.equal(log.total, 2);
  });

  test("pull streams every commit, and with a limit says has_more", async () => {
    const { id: c, head } = await t.contract();
    const res = await t.signed({
      method: "POST",
      url: `/contracts/${c}/push`,
      body: { commits: postsAfter(c, head, 500) },
    });
    assert.equal(json(res.body).pushed, 500);
    const all = json((await t.app.inject({ url: `/contracts/${c}/pull` })).body);
    assert.equal((all.commits as unknown[]).length, 501);
    assert.equal(all.has_more, undefined);
    const some = json((await t.app.inject({ url: `/contracts/${c}/pull?limit=2&since=${head}` })).body);
    assert.deepEqual((some.commits as { parent: string }[]).map((x) => x.parent)[0], head);
    assert.equal((some.commits as unknown[]).length, 2);
    assert.equal(some.has_more, true);
    // A pull of none would answer has_more: true with no commit to continue from, and a
    // client paging until has_more is false would never end: the limit is at least 1.
    const none = await t.app.inject({ url: `/contracts/${c}/pull?limit=0` });
    assert.equal(none.statusCode, 400);
    assert.equal(json(none.body).code, "INVALID_REQUEST");
    assert.equal((json(none.body).details as { field?: string }).field, "querystring/limit");
    const missing = await t.app.inject({ url: "/contracts/missing/pull" });
    assert.equal(missing.statusCode, 404);
  });

  test("/openapi.json documents every route of the table", async () => {
    const doc = json((await t.app.inject({ url: "/openapi.json" })).body);
    const paths = doc.paths as Record<string, Record<string, unknown>>;
    for (const route of REST_ROUTES) {
      const path = route.url.replace(/:(\w+)/g, "{$1}");
      assert.ok(paths[path]?.[route.method.toLowerCase()], `${route.method} ${route.url}`);
    }
  });

  test("/openapi.json lists both answers of a commit submit: 201 created, 200 idempotent re-send", async () => {
    const doc = json((await t.app.inject({ url: "/openapi.json" })).body);
    const paths = doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    const responses = paths["/contracts/{id}/commits"]?.post?.responses ?? {};
    assert.ok(responses["201"], "201");
    assert.ok(responses["200"], "200");
  });

  test("property: arbitrary bodies on every POST route never produce a 5xx", async () => {
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
          const res = await t.signed({ method: "POST", url: urlOf(route.url, id), raw });
          assert.ok(res.statusCode < 500, `${route.url} ${raw} -> ${res.statusCode} ${res.body}`);
          assert.equal(typeof json(res.body).code === "string" || res.statusCode < 300, true);
        },
      ),
      { numRuns: 200, seed: 20_240_601 },
    );
  });
});

test("bodies over the limit are 413 naming the limit; push has its own larger limit", async () => {
  const t = await testApp("rest", { limits: { bodyBytes: 1000, pushBodyBytes: 5000 } });
  try {
    const big = JSON.stringify({ description: "x".repeat(2000) });
    const res = await t.app.inject({
      method: "POST",
      url: "/contracts/synthesize",
      payload: big,
      headers: { "content-type": "application/json" },
    });
    assert.equal(res.statusCode, 413);
    assert.equal(json(res.body).code, "PAYLOAD_TOO_LARGE");
    assert.equal(details(res.body).limit, 1000);

    const commit = genesisFor("big", t.owner, { "/a.text": "y".repeat(1500) });
    const ok = await t.signed({ method: "POST", url: "/contracts/big/push", body: { commits: [commit] } });
    assert.equal(ok.statusCode, 200, ok.body);
    const tooBig = await t.signed({
      method: "POST",
      url: "/contracts/big2/push",
      body: { commits: [commit, commit, commit, commit] },
    });
    assert.equal(tooBig.statusCode, 413);
    assert.equal(details(tooBig.body).limit, 5000);
    assert.equal(await t.hub.store.getContract("big2"), null);
  } finally {
    await t.close();
  }
});

test("commits per push and operations per commit are refused with 413 before the schema walks them", async () => {
  const t = await testApp("rest", { limits: { commitsPerPush: 3, operationsPerCommit: 2 } });
  try {
    // Not even well-formed commits: the count alone decides, before any per-commit check.
    const many = await t.signed({ method: "POST", url: "/contracts/x/push", body: { commits: [1, 2, 3, 4] } });
    assert.equal(many.statusCode, 413, many.body);
    assert.deepEqual([details(many.body).limit, details(many.body).max], ["commitsPerPush", 3]);
    const ops = [1, 2, 3].map(() => ({ method: "post", path: "/a.text", value: "v" }));
    const wide = await t.signed({ method: "POST", url: "/contracts/x/commits", body: { commit: { data: ops } } });
    assert.equal(wide.statusCode, 413, wide.body);
    assert.equal(details(wide.body).limit, "operationsPerCommit");
  } finally {
    await t.close();
  }
});

test("an unexpected failure is 500 INTERNAL without its message; an operation the hub lacks is 503", async () => {
  const t = await testApp("rest", { extras: false });
  try {
    const templates = await t.app.inject({ url: "/templates" });
    assert.equal(templates.statusCode, 503);
    assert.equal(json(templates.body).code, "UNAVAILABLE");
    // A real fault: the store is gone under the hub.
    await t.hub.store.close();
    const boom = await t.app.inject({ url: "/contracts/abc/state" });
    assert.equal(boom.statusCode, 500);
    assert.deepEqual(json(boom.body), { error: "Internal error", code: "INTERNAL" });
  } finally {
    await t.close();
  }
});
