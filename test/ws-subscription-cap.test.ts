/**
 * Subscriptions per WebSocket connection are capped (docs/security.md, "Hostile load"): one
 * anonymous socket could subscribe to the same contract without limit (a batch of 100
 * `subscribe` calls counts once against the rate limit), each subscription holding memory
 * and costing an event per commit; 20,000 of them made one commit hold the hub for seconds.
 * Past the cap, `subscribe` is refused with RATE_LIMITED `too_many_subscriptions`; an
 * `unsubscribe` frees a place. Real HTTP and WebSocket on loopback.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import WebSocket from "ws";
import { AccessRegistry } from "../src/auth/AccessRegistry.js";
import { Authenticator } from "../src/auth/Authenticator.js";
import { socketAuthParams } from "../src/auth/signRequest.js";
import { HubClient } from "../src/client/HubClient.js";
import { HubSocket } from "../src/client/HubSocket.js";
import type { ContractError } from "../src/contract/ContractError.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { startServers } from "../src/http/startServers.js";
import { Hub } from "../src/hub/Hub.js";
import { HeavyWork } from "../src/hub/heavy/HeavyWork.js";
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { socketCall } from "./support/socketCall.js";

const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function liveHub(socketSubscriptions?: number, work?: HeavyWork) {
  const dir = mkdtempSync(join(tmpdir(), "ws-cap-"));
  const store = await SqliteStore.open({ dataDir: dir });
  const hub = new Hub({ store, ...(work !== undefined ? { work } : {}) });
  const servers = await startServers(
    {
      hub,
      authenticator: new Authenticator({ store }),
      registry: new AccessRegistry({ store }),
      rateLimit: 0,
      logger: false,
      ...(socketSubscriptions !== undefined ? { socketSubscriptions } : {}),
    },
    { host: "127.0.0.1", port: 0, rpcPort: 0, rpc: true },
  );
  closers.push(async () => {
    await servers.close();
    await hub.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const identity = generateKeyPair();
  const access = generateKeyPair();
  const anonymous = new HubClient({ url: servers.restUrl, retries: 0 });
  await anonymous.register(identity.seed, access.seed);
  const client = anonymous.withKey(access.seed);
  const { contract_id: id } = await client.createContract({ model: null, rules: [] });
  return { servers, client, id, access };
}

describe("subscriptions per WebSocket connection", () => {
  it("past the configured cap subscribe is RATE_LIMITED too_many_subscriptions; unsubscribe frees a place", async () => {
    const { servers, client, id } = await liveHub(3);
    const socket = await HubSocket.connect(servers.restUrl);
    const subs: string[] = [];
    for (let i = 0; i < 3; i++) subs.push(await socket.subscribe(id, () => {}));
    await assert.rejects(
      socket.subscribe(id, () => {}),
      (e: ContractError) =>
        e.code === "RATE_LIMITED" && e.details?.reason === "too_many_subscriptions" && e.details.limit === 3,
    );
    await socket.unsubscribe(subs[0]!);
    const events: number[] = [];
    await socket.subscribe(id, (e) => events.push(e.commit.index));
    await client.submitCommit(id, { method: "post", path: "/a.text", value: "a" });
    for (let i = 0; events.length < 1; i++) {
      if (i > 2000) assert.fail("no event");
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.deepEqual(events, [1]);
    // Another connection has its own places.
    const other = await HubSocket.connect(servers.restUrl);
    await other.subscribe(id, () => {});
    other.close();
    socket.close();
  });

  it("by default 100 per connection, also when asked for in one batch", async () => {
    const { servers, id } = await liveHub();
    const ws = new WebSocket(`${servers.restUrl.replace("http", "ws")}/ws`);
    await new Promise((r) => ws.once("open", r));
    const batch = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        jsonrpc: "2.0",
        id: from + i,
        method: "subscribe",
        params: { contract_id: id },
      }));
    const first = (await socketCall(ws, batch(0, 100))) as Array<{ result?: unknown; error?: unknown }>;
    assert.equal(first.filter((a) => a.result !== undefined).length, 100);
    const second = (await socketCall(ws, batch(100, 5))) as Array<{
      error?: { code: number; data?: { code: string; details?: { reason?: string; limit?: number } } };
    }>;
    assert.equal(second.length, 5);
    for (const answer of second) {
      assert.equal(answer.error?.code, -32029);
      assert.equal(answer.error?.data?.code, "RATE_LIMITED");
      assert.equal(answer.error?.data?.details?.reason, "too_many_subscriptions");
      assert.equal(answer.error?.data?.details?.limit, 100);
    }
    ws.close();
  });

  it("one commit's events to many subscriptions: the same entry and state, in JSON.stringify's form", async () => {
    // Their shared parts are serialized once (SocketSession); the text must not differ from
    // serializing each message whole.
    const { servers, client, id } = await liveHub();
    const ws = new WebSocket(`${servers.restUrl.replace("http", "ws")}/ws`);
    await new Promise((r) => ws.once("open", r));
    const raw: string[] = [];
    ws.on("message", (data) => {
      const text = String(data);
      if (JSON.parse(text).method === "commit") raw.push(text);
    });
    const subscribe = Array.from({ length: 3 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i,
      method: "subscribe",
      params: { contract_id: id },
    }));
    const answers = (await socketCall(ws, subscribe)) as Array<{ result: { subscription: string } }>;
    await client.submitCommit(id, {
      contract_id: id,
      method: "post",
      path: "/v.json",
      value: { b: [1, "x"], a: null },
    });
    for (let i = 0; raw.length < 3; i++) {
      if (i > 2000) assert.fail(`got ${raw.length} events`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const events = raw.map((text) => JSON.parse(text));
    for (const [i, text] of raw.entries()) assert.equal(text, JSON.stringify(events[i]));
    assert.deepEqual(events.map((e) => e.params.subscription).sort(), answers.map((a) => a.result.subscription).sort());
    for (const e of events) {
      assert.deepEqual(Object.keys(e.params), ["subscription", "contract_id", "commit", "state"]);
      assert.deepEqual(e.params.commit, events[0].params.commit);
      assert.deepEqual(e.params.state, events[0].params.state);
    }
    assert.deepEqual(events[0].params.commit.value, { b: [1, "x"], a: null });
    assert.equal(events[0].params.state.commit_count, 2);
    ws.close();
  });

  it("a socket whose key is revoked is budgeted by its address again, not by an address-less bucket", async () => {
    // A revoked socket becomes anonymous; it kept no address, so its expensive work (a
    // `since` replay) was charged to one bucket shared by every such socket ("ip:unknown").
    const work = new HeavyWork({ workBudgetMs: 5_000, now: () => 1_000_000 });
    const { servers, client, id, access } = await liveHub(undefined, work);
    for (let i = 0; i < 50; i++)
      await client.submitCommit(id, { contract_id: id, method: "post", path: `/n${i}.text`, value: "v" });
    const ws = new WebSocket(`${servers.restUrl.replace("http", "ws")}/ws`);
    const hello = await new Promise<{ params: { challenge: string } }>((resolve) =>
      ws.once("message", (data) => resolve(JSON.parse(String(data)))),
    );
    const auth = (await socketCall(ws, {
      jsonrpc: "2.0",
      id: 1,
      method: "authenticate",
      params: socketAuthParams(access.seed, hello.params.challenge),
    })) as { result?: unknown };
    assert.ok(auth.result !== undefined, JSON.stringify(auth));
    await client.revoke(access.publicKey.toString("hex"));
    const events: unknown[] = [];
    ws.on("message", (data) => {
      if (JSON.parse(String(data)).method === "commit") events.push(data);
    });
    const sub = (await socketCall(ws, {
      jsonrpc: "2.0",
      id: 2,
      method: "subscribe",
      params: { contract_id: id, since: 0 },
    })) as { result?: unknown };
    assert.ok(sub.result !== undefined, JSON.stringify(sub));
    for (let i = 0; events.length < 51; i++) {
      if (i > 2000) assert.fail(`replayed ${events.length}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise((r) => setTimeout(r, 20));
    assert.ok(work.budget.remaining("ip:127.0.0.1") < 5_000, "the replay was charged to the socket's address");
    assert.equal(work.budget.remaining("ip:unknown"), 5_000);
    ws.close();
  });
});
