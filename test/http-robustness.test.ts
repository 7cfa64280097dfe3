/**
 * Every REST route of the real hub fed malformed JSON, wrong types, oversized bodies, bad hex
 * and unknown ids: each answers its documented 4xx code with an error body, never a 500, and
 * the server keeps serving. Auth failures over real HTTP are 401 with their reason.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import fc from "fast-check";
import { signRequest } from "../src/auth/signRequest.js";
import { REST_ROUTES } from "../src/http/restRoutes.js";
import { type LiveHub, type Party, startLiveHub } from "./e2e-transports.js";

let live: LiveHub;
let alice: Party;
let contractId: string;

before(async () => {
  live = await startLiveHub();
  alice = await live.party("alice");
  contractId = (await live.rest.withKey(alice.access.seed).createContract({ model: null, rules: [] })).contract_id;
});
after(async () => live.close());

async function send(
  method: string,
  path: string,
  raw?: string | Buffer,
  sign = true,
  extra: Record<string, string> = {},
) {
  const headers: Record<string, string> = { "content-type": "application/json", ...extra };
  if (sign) Object.assign(headers, signRequest(alice.access.seed, { method, url: path, body: raw ?? "" }));
  const res = await fetch(live.servers.restUrl + path, {
    method,
    headers,
    ...(raw === undefined ? {} : { body: raw }),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? (JSON.parse(text) as { code?: string; details?: Record<string, unknown> }) : {},
  };
}

const url = (pattern: string, id: string, hash = "0".repeat(64)) => pattern.replace(":id", id).replace(":hash", hash);

test("malformed JSON, wrong types and non-objects on every POST route are 400", async () => {
  for (const route of REST_ROUTES.filter((r) => r.method === "POST")) {
    for (const raw of [
      "{",
      "nul",
      '{"a":1,}',
      "[]",
      "42",
      '"s"',
      '{"commits":5,"rules":7,"identity_pubkey":1,"description":2,"access_key":3}',
    ]) {
      const res = await send("POST", url(route.url, contractId), raw);
      assert.equal(res.status, 400, `${route.url} ${raw} -> ${res.status} ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, "INVALID_REQUEST");
    }
  }
});

test("unknown contracts and commits are 404; bad hex is 400", async () => {
  for (const route of REST_ROUTES.filter(
    (r) => r.method === "GET" && r.url.startsWith("/contracts/:id") && !r.url.endsWith("/assets"),
  )) {
    const res = await send("GET", url(route.url, "no-such-contract"));
    assert.equal(res.status, 404, route.url);
    assert.equal(res.body.code, "NOT_FOUND");
  }
  const commit = await send("GET", url("/contracts/:id/commits/:hash", contractId));
  assert.equal(commit.status, 404);
  for (const hash of ["abc", "G".repeat(64), "A".repeat(64)]) {
    const res = await send("GET", url("/contracts/:id/commits/:hash", contractId, hash));
    assert.equal(res.status, 400, hash);
  }
  const badSig = await send(
    "POST",
    `/contracts/${contractId}/commits`,
    JSON.stringify({
      contract_id: contractId,
      method: "post",
      path: "/a.text",
      value: "x",
      parent: "zz",
      signatures: { "/a.id": "00" },
    }),
  );
  assert.equal(badSig.status, 400);
  const badGrant = await send(
    "POST",
    `/contracts/${contractId}/grant`,
    JSON.stringify({ identity: "ed25519:xyz", role: "reader" }),
  );
  assert.equal(badGrant.status, 400);
});

test("oversized bodies are 413 naming the limit, read without buffering the whole body", async () => {
  const big = JSON.stringify({ description: "x".repeat(1024 * 1024 + 10) });
  const res = await send("POST", "/contracts/synthesize", big, false);
  assert.equal(res.status, 413);
  assert.equal(res.body.code, "PAYLOAD_TOO_LARGE");
  assert.equal(res.body.details?.limit, 1024 * 1024);
  const health = await send("GET", "/health");
  assert.equal(health.status, 200);
});

test("auth over real HTTP: missing, bad, expired and replayed signatures are 401", async () => {
  const body = JSON.stringify({ model: null, rules: [] });
  const missing = await send("POST", "/contracts", body, false);
  assert.equal(missing.status, 401);
  assert.equal(missing.body.details?.reason, "missing_headers");
  const headers = signRequest(alice.access.seed, { method: "POST", url: "/contracts", body });
  const bad = await send("POST", "/contracts", JSON.stringify({ model: null, rules: ["x"] }), false, headers);
  assert.equal(bad.body.details?.reason, "bad_signature");
  const old = signRequest(alice.access.seed, {
    method: "POST",
    url: "/contracts",
    body,
    timestamp: Date.now() - 10 * 60_000,
  });
  const expired = await send("POST", "/contracts", body, false, old);
  assert.equal(expired.body.details?.reason, "expired_timestamp");
  const first = await send("POST", "/contracts", body, false, headers);
  assert.equal(first.status, 201);
  const replay = await send("POST", "/contracts", body, false, headers);
  assert.equal(replay.status, 401);
  assert.equal(replay.body.details?.reason, "replayed_nonce");
});

test("register, list and revoke access keys over HTTP; a revoked key is refused", async () => {
  const bob = await live.party("bob");
  const client = live.rest.withKey(bob.access.seed);
  const list = await client.access();
  assert.equal(list.identity, `ed25519:${bob.key}`);
  assert.equal(list.access_keys.length, 1);
  await client.revoke(bob.access.publicKey.toString("hex"));
  await assert.rejects(client.access(), (e: { code?: string }) => e.code === "UNAUTHORIZED");
  await assert.rejects(
    live.rest.register(bob.identity.seed, bob.access.seed),
    (e: { code?: string }) => e.code === "CONFLICT",
  );
});

test("property: arbitrary JSON on every POST route of the real hub is never a 5xx", async () => {
  const posts = REST_ROUTES.filter((r) => r.method === "POST");
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...posts), fc.jsonValue(), fc.boolean(), async (route, value, bad) => {
      const res = await send("POST", url(route.url, bad ? "no-such" : contractId), JSON.stringify(value));
      assert.ok(res.status < 500, `${route.url} ${JSON.stringify(value)} -> ${res.status} ${JSON.stringify(res.body)}`);
      if (res.status >= 400) assert.equal(typeof res.body.code, "string");
    }),
    { numRuns: 150 },
  );
});
