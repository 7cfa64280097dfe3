/**
 * New identities per client address (PROTOCOL.md §18, docs/security.md "Rate limits and
 * quotas"): identities cost nothing to register, and each brings its own work budget and
 * request bucket, so one address may create only so many an hour. Over real HTTP on loopback:
 * past the limit `POST /register` of a new identity is 429 RATE_LIMITED `registration_limit`
 * with `details.limit` and Retry-After, nothing is stored, JSON-RPC (HTTP and /ws) shares
 * the address's bucket, another address is not affected, and what creates no identity (a
 * re-sent registration, a new access key of a known identity, a revocation) is never refused.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { request } from "node:http";
import { test } from "node:test";
import { WebSocket } from "ws";
import { registrationBody, revocationBody, signRequest } from "../src/auth/signRequest.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { RegistrationLimit } from "../src/http/RegistrationLimit.js";
import { listenRestAndRpc } from "./support/liveTestApp.js";
import { testApp } from "./support/testApps.js";

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/** POSTs JSON to `url + path` from the loopback address `from` (default 127.0.0.1). */
function post(url: string, path: string, body: unknown, from = "127.0.0.1", headers = {}): Promise<Reply> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { method: "POST", localAddress: from, headers: { "content-type": "application/json", ...headers } },
      (res) => {
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (data += d));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(data) }));
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

/** A fresh identity's registration body, with its seeds. */
function newIdentity() {
  const identity = generateKeyPair();
  const access = generateKeyPair();
  return { identity, access, body: registrationBody(identity.seed, access.seed) };
}

const detailsOf = (r: Reply) => r.body.details as Record<string, unknown>;

test("from one address the 21st new identity of the hour is 429 registration_limit; nothing is stored; others go on", async () => {
  // The default limit: testApp passes none, as `contract-hub start` without the flag.
  const t = await testApp("rest");
  const live = await listenRestAndRpc(t);
  try {
    const first = newIdentity();
    const statuses = [(await post(live.restUrl, "/register", first.body)).status];
    for (let i = 1; i < 20; i++) statuses.push((await post(live.restUrl, "/register", newIdentity().body)).status);
    assert.deepEqual(new Set(statuses), new Set([201]));
    assert.equal(statuses.length, 20);

    const refused = newIdentity();
    const limited = await post(live.restUrl, "/register", refused.body);
    assert.equal(limited.status, 429);
    assert.equal(limited.body.code, "RATE_LIMITED");
    const d = detailsOf(limited);
    assert.deepEqual([d.reason, d.limit, d.window_s], ["registration_limit", 20, 3600]);
    // One identity comes back every 3 minutes (20 an hour, refilled evenly).
    assert.ok(typeof d.retry_after === "number" && d.retry_after >= 1 && d.retry_after <= 180, String(d.retry_after));
    assert.equal(limited.headers["retry-after"], String(d.retry_after));

    // Nothing was stored: the refused identity's access key cannot authenticate.
    const path = "/access";
    const asRefused = await fetch(`${live.restUrl}${path}`, {
      headers: signRequest(refused.access.seed, { method: "GET", url: path, body: "" }),
    });
    assert.equal(asRefused.status, 401);
    assert.equal(((await asRefused.json()) as { details: { reason: string } }).details.reason, "unknown_key");
    assert.deepEqual(await t.hub.store.listAccessKeys(refused.body.identity_pubkey), []);

    // JSON-RPC over HTTP spends the same address's bucket: -32029 with the same details.
    const call = { jsonrpc: "2.0", id: 1, method: "register", params: newIdentity().body };
    const rpc = await post(live.rpcUrl, "/", call);
    assert.equal(rpc.status, 200);
    const error = rpc.body.error as { code: number; data: { code: string; details: Record<string, unknown> } };
    assert.equal(error.code, -32029);
    assert.equal(error.data.code, "RATE_LIMITED");
    assert.deepEqual([error.data.details.reason, error.data.details.limit], ["registration_limit", 20]);
    assert.equal(rpc.headers["retry-after"], String(error.data.details.retry_after));

    // And so does a WebSocket of that address.
    const ws = new WebSocket(`${live.rpcUrl.replace("http", "ws")}/ws`);
    const frames: Record<string, unknown>[] = [];
    const waiting: (() => void)[] = [];
    ws.on("message", (m) => {
      frames.push(JSON.parse(String(m)));
      waiting.shift()?.();
    });
    const nextFrame = async () => {
      if (frames.length === 0) await new Promise<void>((r) => waiting.push(r));
      return frames.shift()!;
    };
    await once(ws, "open");
    await nextFrame(); // hello
    ws.send(JSON.stringify({ ...call, id: 2, params: newIdentity().body }));
    const overWs = (await nextFrame()).error as typeof error;
    ws.close();
    assert.deepEqual([overWs.code, overWs.data.details.reason], [-32029, "registration_limit"]);

    // Another address has its own allowance.
    const elsewhere = await post(live.restUrl, "/register", newIdentity().body, "127.0.0.2");
    assert.equal(elsewhere.status, 201);

    // What creates no identity is never refused: a new access key of an identity registered
    // before, the same registration sent again, and a revocation.
    const sibling = generateKeyPair();
    const siblingBody = registrationBody(first.identity.seed, sibling.seed);
    assert.equal((await post(live.restUrl, "/register", siblingBody)).status, 201);
    assert.equal((await post(live.restUrl, "/register", siblingBody)).status, 201);
    assert.equal((await post(live.restUrl, "/register", first.body)).status, 201);
    const revoke = revocationBody(first.identity.seed, sibling.publicKey.toString("hex"));
    assert.equal((await post(live.restUrl, "/access/revoke", revoke)).status, 200);
    // An identity whose keys are all revoked is still known: a new key for it is not a new identity.
    const firstKey = revocationBody(first.identity.seed, first.body.access_pubkey);
    assert.equal((await post(live.restUrl, "/access/revoke", firstKey)).status, 200);
    const another = registrationBody(first.identity.seed, generateKeyPair().seed);
    assert.equal((await post(live.restUrl, "/register", another)).status, 201);
    // Still refused for new identities.
    assert.equal((await post(live.restUrl, "/register", newIdentity().body)).status, 429);
  } finally {
    await live.close();
  }
});

test("the allowance refills evenly over the hour; refused registrations spend none of it", async () => {
  let now = 1_000_000;
  const t = await testApp("rest", { registrationLimiter: new RegistrationLimit(2, () => now) });
  const live = await listenRestAndRpc(t);
  try {
    const forged = { ...newIdentity().body, access_signature: "00".repeat(64) };
    const badSignature = await post(live.restUrl, "/register", forged);
    assert.equal(badSignature.status, 401);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(live.restUrl, "/register", newIdentity().body)).status);
    assert.deepEqual(statuses, [201, 201, 429]);
    const limited = await post(live.restUrl, "/register", newIdentity().body);
    assert.deepEqual([detailsOf(limited).limit, detailsOf(limited).retry_after], [2, 1800]);
    assert.equal(limited.headers["retry-after"], "1800");
    now += 1_800_000;
    assert.equal((await post(live.restUrl, "/register", newIdentity().body)).status, 201);
    assert.equal((await post(live.restUrl, "/register", newIdentity().body)).status, 429);
  } finally {
    await live.close();
  }
});

test("registration limit 0 turns the limit off", async () => {
  const t = await testApp("rest", { registrationLimit: 0 });
  const live = await listenRestAndRpc(t);
  try {
    const statuses = new Set<number>();
    for (let i = 0; i < 25; i++) statuses.add((await post(live.restUrl, "/register", newIdentity().body)).status);
    assert.deepEqual([...statuses], [201]);
  } finally {
    await live.close();
  }
});
