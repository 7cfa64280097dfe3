import assert from "node:assert/strict";
import { once } from "node:events";
import { test } from "node:test";
import { WebSocket } from "ws";
import { socketAuthParams } from "../auth/signRequest.js";
import { testApp } from "./testing/testApps.js";

type Msg = {
  id?: unknown;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number };
};

/** A raw socket that queues every message, so tests read them in order. */
async function connect(port: number) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  const queue: Msg[] = [];
  const waiters: ((m: Msg) => void)[] = [];
  ws.on("message", (data) => {
    const m = JSON.parse(String(data)) as Msg;
    const w = waiters.shift();
    if (w) w(m);
    else queue.push(m);
  });
  await once(ws, "open");
  const next = () =>
    new Promise<Msg>((resolve) => (queue.length > 0 ? resolve(queue.shift()!) : waiters.push(resolve)));
  let id = 0;
  const request = async (method: string, params?: unknown) => {
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }));
    return next();
  };
  return { ws, next, request };
}

async function withServer(
  kind: "rest" | "rpc",
  fn: (t: Awaited<ReturnType<typeof testApp>>, port: number) => Promise<void>,
) {
  const t = await testApp(kind);
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  try {
    await fn(t, (t.app.server.address() as { port: number }).port);
  } finally {
    await t.app.close();
  }
}

test("hello, JSON-RPC over the socket, and parse errors", async () => {
  await withServer("rest", async (_t, port) => {
    const c = await connect(port);
    const hello = await c.next();
    assert.equal(hello.method, "hello");
    assert.match(String(hello.params?.challenge), /^[0-9a-f]{64}$/);
    assert.equal(hello.params?.version, "0.1.0");
    const health = await c.request("getHealth");
    assert.equal(health.result?.status, "ok");
    c.ws.send("{nope");
    assert.equal((await c.next()).error?.code, -32700);
    const write = await c.request("push", { contract_id: "abc", commits: [] });
    assert.equal(write.error?.code, -32001);
    c.ws.close();
  });
});

test("authenticate, subscribe with replay before live events, unsubscribe", async () => {
  await withServer("rpc", async (t, port) => {
    const c = await connect(port);
    const hello = await c.next();
    const bad = await c.request("authenticate", { key: "00".repeat(32), signature: "00".repeat(64) });
    assert.equal(bad.error?.code, -32001);
    const auth = await c.request("authenticate", socketAuthParams(t.access.seed, String(hello.params?.challenge)));
    assert.equal(auth.result?.access_key, t.access.publicKey.toString("hex"));

    const sub = await c.request("subscribe", { contract_id: "abc", since: 0 });
    const subscription = sub.result?.subscription;
    assert.equal(typeof subscription, "string");
    assert.equal(t.hub.last("subscribe")?.caller?.identity, t.identity.publicKey.toString("hex"));
    assert.deepEqual(t.hub.last("subscribe")?.args, ["abc", 0]);
    const replayed = await c.next();
    assert.equal(replayed.method, "commit");
    assert.equal(replayed.params?.subscription, subscription);
    assert.equal((replayed.params?.commit as { index: number } | undefined)?.index, 0);

    t.hub.listeners.get("abc")!({
      contract_id: "abc",
      commit: { index: 1, hash: "b".repeat(64), method: "post", signers: [], timestamp: 2 },
      state: {} as never,
    });
    const live = await c.next();
    assert.equal((live.params?.commit as { index: number } | undefined)?.index, 1);

    const nf = await c.request("subscribe", { contract_id: "missing" });
    assert.equal(nf.error?.code, -32004);
    const un = await c.request("unsubscribe", { subscription });
    assert.equal(un.result?.unsubscribed, true);
    assert.equal(t.hub.listeners.has("abc"), false);
    const again = await c.request("unsubscribe", { subscription });
    assert.equal(again.error?.code, -32004);
    c.ws.close();
  });
});

test("revoking the socket's key closes its subscriptions", async () => {
  await withServer("rest", async (t, port) => {
    const c = await connect(port);
    const hello = await c.next();
    await c.request("authenticate", socketAuthParams(t.access.seed, String(hello.params?.challenge)));
    const sub = await c.request("subscribe", { contract_id: "abc" });
    assert.equal((await c.next()).method, "commit");
    const key = t.access.publicKey.toString("hex");
    const revoked = await t.signed({ method: "POST", url: "/access/revoke", body: { access_key: key } });
    assert.equal(revoked.statusCode, 200, revoked.body);
    const closed = await c.next();
    assert.equal(closed.method, "subscription_closed");
    assert.equal(closed.params?.subscription, sub.result?.subscription);
    assert.equal(t.hub.listeners.has("abc"), false);
    c.ws.close();
  });
});
