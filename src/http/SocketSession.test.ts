import assert from "node:assert/strict";
import { EventEmitter, once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { WebSocket } from "ws";
import { openSqliteHub } from "../../test/support/openSqliteHub.js";
import { type Principal, postsAfter, type TestApp, testApp } from "../../test/support/testApps.js";
import { AccessRegistry } from "../auth/AccessRegistry.js";
import { Authenticator } from "../auth/Authenticator.js";
import { socketAuthParams } from "../auth/signRequest.js";
import { generateKeyPair } from "../contract/keys.js";
import type { Caller } from "../hub/HubApi.js";
import type { Store } from "../store/Store.js";
import type { HttpOptions } from "./HttpOptions.js";
import { RpcDispatcher } from "./RpcDispatcher.js";
import { SOCKET_METHODS, type SocketContext, SocketSession } from "./SocketSession.js";

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

async function withServer(kind: "rest" | "rpc", fn: (t: TestApp, port: number) => Promise<void>) {
  const t = await testApp(kind);
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  try {
    await fn(t, (t.app.server.address() as { port: number }).port);
  } finally {
    await t.close();
  }
}

/** A connection authenticated as `p` (default: the app's owner). */
async function authenticated(t: TestApp, port: number, p: Principal = t.owner) {
  const c = await connect(port);
  const hello = await c.next();
  const auth = await c.request("authenticate", socketAuthParams(p.access.seed, String(hello.params?.challenge)));
  assert.equal(auth.result?.access_key, p.access.publicKey.toString("hex"));
  return c;
}

const indexOf = (m: Msg) => (m.params?.commit as { index: number } | undefined)?.index;

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
    const { id, head } = await t.contract();
    const c = await connect(port);
    const hello = await c.next();
    const bad = await c.request("authenticate", { key: "00".repeat(32), signature: "00".repeat(64) });
    assert.equal(bad.error?.code, -32001);
    const auth = await c.request(
      "authenticate",
      socketAuthParams(t.owner.access.seed, String(hello.params?.challenge)),
    );
    assert.equal(auth.result?.access_key, t.owner.access.publicKey.toString("hex"));

    const sub = await c.request("subscribe", { contract_id: id, since: 0 });
    const subscription = sub.result?.subscription;
    assert.equal(typeof subscription, "string");
    const replayed = await c.next();
    assert.equal(replayed.method, "commit");
    assert.equal(replayed.params?.subscription, subscription);
    assert.equal(indexOf(replayed), 0);

    await t.hub.push(t.owner.caller, id, { commits: postsAfter(id, head, 1) });
    const live = await c.next();
    assert.equal(indexOf(live), 1);

    const nf = await c.request("subscribe", { contract_id: "missing" });
    assert.equal(nf.error?.code, -32004);
    const un = await c.request("unsubscribe", { subscription });
    assert.equal(un.result?.unsubscribed, true);
    assert.equal(t.hub.bus.hasListeners(id), false);
    const again = await c.request("unsubscribe", { subscription });
    assert.equal(again.error?.code, -32004);
    c.ws.close();
  });
});

test("revoking the socket's key closes its subscriptions and de-authenticates the socket", async () => {
  await withServer("rest", async (t, port) => {
    const { id } = await t.contract();
    const c = await authenticated(t, port);
    const sub = await c.request("subscribe", { contract_id: id, since: 0 });
    assert.equal((await c.next()).method, "commit");
    const key = t.owner.access.publicKey.toString("hex");
    const revoked = await t.signed({ method: "POST", url: "/access/revoke", body: { access_key: key } });
    assert.equal(revoked.statusCode, 200, revoked.body);
    const closed = await c.next();
    assert.equal(closed.method, "subscription_closed");
    assert.equal(closed.params?.subscription, sub.result?.subscription);
    assert.equal(closed.params?.reason, "access_key_revoked");
    assert.equal(t.hub.bus.hasListeners(id), false);
    const write = await c.request("createContract", { model: null, rules: [] });
    assert.equal(write.error?.code, -32001);
    c.ws.close();
  });
});

test("a key revoked where this session cannot hear it (another instance) is refused at the next frame", async () => {
  await withServer("rest", async (t, port) => {
    const { id } = await t.contract();
    const c = await authenticated(t, port);
    const sub = await c.request("subscribe", { contract_id: id });
    // Straight in the store: no revocation event reaches this process, as with a second hub on one database.
    await t.hub.store.revokeAccessKey(t.owner.access.publicKey.toString("hex"), 1);
    c.ws.send(JSON.stringify({ jsonrpc: "2.0", id: 99, method: "createContract", params: { model: null, rules: [] } }));
    const closed = await c.next();
    assert.equal(closed.method, "subscription_closed");
    assert.equal(closed.params?.subscription, sub.result?.subscription);
    const answer = await c.next();
    assert.equal(answer.id, 99);
    assert.equal(answer.error?.code, -32001);
    c.ws.close();
  });
});

test("a reader granted none loses its subscription to a private contract; the owner keeps its own", async () => {
  await withServer("rest", async (t, port) => {
    const reader = await t.principal();
    const { id, head } = await t.contract({ model: null, rules: [], readers: [reader.key] });
    const r = await authenticated(t, port, reader);
    const o = await authenticated(t, port);
    const rs = await r.request("subscribe", { contract_id: id });
    const os = await o.request("subscribe", { contract_id: id });
    const none = await t.signed({
      method: "POST",
      url: `/contracts/${id}/grant`,
      body: { identity: reader.key, role: "none" },
    });
    assert.equal(none.statusCode, 200, none.body);
    const closed = await r.next();
    assert.equal(closed.method, "subscription_closed");
    assert.equal(closed.params?.subscription, rs.result?.subscription);
    assert.equal(closed.params?.reason, "access_lost");
    await t.hub.push(t.owner.caller, id, { commits: postsAfter(id, head, 1) });
    const live = await o.next();
    assert.equal(live.params?.subscription, os.result?.subscription);
    assert.equal(indexOf(live), 1);
    // The reader got nothing more: its next message is the answer to its next request.
    const again = await r.request("subscribe", { contract_id: id });
    assert.equal(again.error?.code, -32004);
    r.ws.close();
    o.ws.close();
  });
});

test("a key revoked where this session cannot hear it gets no further event of a private contract, even without sending a frame", async () => {
  await withServer("rest", async (t, port) => {
    const reader = await t.principal();
    const { id, head } = await t.contract({ model: null, rules: [], readers: [reader.key] });
    const r = await authenticated(t, port, reader);
    const o = await authenticated(t, port);
    const rs = await r.request("subscribe", { contract_id: id });
    const os = await o.request("subscribe", { contract_id: id });
    // Straight in the store: no revocation event reaches this process, as with a second hub on one database.
    await t.hub.store.revokeAccessKey(reader.access.publicKey.toString("hex"), 1);
    await t.hub.push(t.owner.caller, id, { commits: postsAfter(id, head, 1) });
    assert.equal(indexOf(await o.next()), 1);
    const closed = await r.next();
    assert.equal(closed.method, "subscription_closed");
    assert.equal(closed.params?.subscription, rs.result?.subscription);
    assert.equal(closed.params?.reason, "access_key_revoked");
    assert.ok(os.result?.subscription);
    r.ws.close();
    o.ws.close();
  });
});

test("a stranger subscribing to a private contract gets the error of a missing contract", async () => {
  await withServer("rest", async (t, port) => {
    const { id } = await t.contract({ model: null, rules: [], readers: [] });
    const anon = await connect(port);
    await anon.next();
    const stranger = await authenticated(t, port, await t.principal());
    const owner = await authenticated(t, port);
    const missing = await anon.request("subscribe", { contract_id: "no-such-contract" });
    const hidden = await anon.request("subscribe", { contract_id: id });
    const hidden2 = await stranger.request("subscribe", { contract_id: id });
    assert.equal(missing.error?.code, -32004);
    assert.deepEqual([hidden.error?.code, hidden2.error?.code], [-32004, -32004]);
    const mine = await owner.request("subscribe", { contract_id: id });
    assert.equal(typeof mine.result?.subscription, "string");
    for (const c of [anon, stranger, owner]) c.ws.close();
  });
});

/** Authenticates an open connection `c` again, as `p` (the hello's challenge is the connection's). */
async function reauthenticate(c: Awaited<ReturnType<typeof connect>>, challenge: string, p: Principal) {
  const auth = await c.request("authenticate", socketAuthParams(p.access.seed, challenge));
  assert.equal(auth.result?.access_key, p.access.publicKey.toString("hex"));
}

test("a subscription keeps the key it was made under: revoking that key closes it after the socket re-authenticated", {
  timeout: 20_000,
}, async () => {
  await withServer("rest", async (t, port) => {
    const reader = await t.principal();
    const other = await t.principal();
    const { id, head } = await t.contract({ model: null, rules: [], readers: [reader.key] });
    const c = await connect(port);
    const challenge = String((await c.next()).params?.challenge);
    await reauthenticate(c, challenge, reader);
    const sub = await c.request("subscribe", { contract_id: id });
    await reauthenticate(c, challenge, other);
    const readerKey = reader.access.publicKey.toString("hex");
    const revoked = await t.signed({
      method: "POST",
      url: "/access/revoke",
      body: { access_key: readerKey },
      as: reader,
    });
    assert.equal(revoked.statusCode, 200, revoked.body);
    const closed = await c.next();
    assert.equal(closed.method, "subscription_closed");
    assert.equal(closed.params?.subscription, sub.result?.subscription);
    assert.equal(closed.params?.reason, "access_key_revoked");
    assert.equal(t.hub.bus.hasListeners(id), false);
    await t.hub.push(t.owner.caller, id, { commits: postsAfter(id, head, 1) });
    // The socket still acts as `other` (its own key is not revoked), and no event followed.
    const access = await c.request("getAccess");
    assert.equal(access.error, undefined);
    assert.equal(
      (access.result as { access_keys: { access_key: string }[] }).access_keys[0]?.access_key,
      other.access.publicKey.toString("hex"),
    );
    c.ws.close();
  });
});

test("a revocation another instance made closes the subscriptions of that key at the next frame, whatever key the socket holds", {
  timeout: 20_000,
}, async () => {
  await withServer("rest", async (t, port) => {
    const reader = await t.principal();
    const other = await t.principal();
    const { id } = await t.contract({ model: null, rules: [], readers: [reader.key] });
    const c = await connect(port);
    const challenge = String((await c.next()).params?.challenge);
    await reauthenticate(c, challenge, reader);
    const sub = await c.request("subscribe", { contract_id: id });
    await reauthenticate(c, challenge, other);
    // Straight in the store: no revocation event reaches this process, as with a second hub on one database.
    await t.hub.store.revokeAccessKey(reader.access.publicKey.toString("hex"), 1);
    c.ws.send(JSON.stringify({ jsonrpc: "2.0", id: 99, method: "getHealth" }));
    const closed = await c.next();
    assert.equal(closed.method, "subscription_closed");
    assert.equal(closed.params?.subscription, sub.result?.subscription);
    assert.equal(closed.params?.reason, "access_key_revoked");
    assert.equal((await c.next()).id, 99);
    c.ws.close();
  });
});

test("a grant withdrawn from the identity a subscription was made as closes it after the socket re-authenticated", {
  timeout: 20_000,
}, async () => {
  await withServer("rest", async (t, port) => {
    const reader = await t.principal();
    const other = await t.principal();
    const { id } = await t.contract({ model: null, rules: [], readers: [reader.key] });
    const c = await connect(port);
    const challenge = String((await c.next()).params?.challenge);
    await reauthenticate(c, challenge, reader);
    const sub = await c.request("subscribe", { contract_id: id });
    await reauthenticate(c, challenge, other);
    const none = await t.signed({
      method: "POST",
      url: `/contracts/${id}/grant`,
      body: { identity: reader.key, role: "none" },
    });
    assert.equal(none.statusCode, 200, none.body);
    const closed = await c.next();
    assert.equal(closed.method, "subscription_closed");
    assert.equal(closed.params?.subscription, sub.result?.subscription);
    assert.equal(closed.params?.reason, "access_lost");
    c.ws.close();
  });
});

test("subscribe from an index past the log is refused like an unknown hash; from the next index it waits for live commits", async () => {
  await withServer("rpc", async (t, port) => {
    const { id, head } = await t.contract();
    const c = await authenticated(t, port);
    for (const since of [2, 1_000_000]) {
      const far = await c.request("subscribe", { contract_id: id, since });
      assert.equal(far.error?.code, -32004);
      const data = (far.error as { data?: { code: string; details: Record<string, unknown> } }).data;
      assert.equal(data?.code, "NOT_FOUND");
      assert.equal(data?.details.reason, "since_not_found");
      assert.equal(data?.details.length, 1);
    }
    assert.equal(t.hub.bus.hasListeners(id), false);
    const next = await c.request("subscribe", { contract_id: id, since: 1 });
    await t.hub.push(t.owner.caller, id, { commits: postsAfter(id, head, 1) });
    const live = await c.next();
    assert.equal(live.params?.subscription, next.result?.subscription);
    assert.equal(indexOf(live), 1);
    c.ws.close();
  });
});

test("another request on the socket finishing first does not release the events of a subscription whose answer is pending", async () => {
  await withServer("rest", async (t, port) => {
    const { id } = await t.contract();
    const c = await authenticated(t, port);
    // The subscribe request is held after its commit subscription registered (where a slow
    // store read, e.g. a Postgres round trip, keeps it), until `release`; `queued` resolves
    // once its first event was handed to the session, i.e. held back for the answer.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let delivered!: () => void;
    const queued = new Promise<void>((resolve) => (delivered = resolve));
    const hub = t.hub;
    const subscribe = hub.subscribe.bind(hub);
    const subscribeProposals = hub.subscribeProposals.bind(hub);
    hub.subscribe = (caller, cid, since, listener, onClosed) =>
      subscribe(
        caller,
        cid,
        since,
        (event) => {
          listener(event);
          delivered();
        },
        onClosed,
      );
    hub.subscribeProposals = async (...args) => {
      await held;
      return subscribeProposals(...args);
    };
    c.ws.send(
      JSON.stringify({ jsonrpc: "2.0", id: "sub", method: "subscribe", params: { contract_id: id, since: 0 } }),
    );
    await queued;
    // A second request on the same socket completes while the subscribe is still held.
    const health = await c.request("getHealth");
    assert.equal(health.result?.status, "ok");
    release();
    // The next message is the subscribe answer (the bug sent the held-back commit event here).
    const answer = await c.next();
    assert.deepEqual([answer.id, answer.method], ["sub", undefined]);
    const event = await c.next();
    assert.equal(event.method, "commit");
    assert.equal(event.params?.subscription, answer.result?.subscription);
    assert.equal(indexOf(event), 0);
    c.ws.close();
  });
});

/**
 * The server side of a socket whose client reads nothing: from the first commit event sent on,
 * more than 64 MiB wait unsent. `close` starts the close handshake, which such a client never
 * answers, so "close" is not emitted (ws would emit it only when the handshake times out).
 */
class UnreadSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  closeCode: number | null = null;
  readonly sent: Msg[] = [];

  send(text: string): void {
    const message = JSON.parse(text) as Msg;
    this.sent.push(message);
    if (message.method === "commit") this.bufferedAmount = 64 * 1024 * 1024 + 1;
  }

  close(code: number): void {
    this.closeCode = code;
    this.readyState = 2;
  }
}

test("a client disconnected for not reading (1013) has its subscription's replay stopped at that decision", async () => {
  const dir = mkdtempSync(join(tmpdir(), "socket-session-test-"));
  const socket = new UnreadSocket();
  // Commits the replay reads from the store once the socket is being closed; `ended` resolves
  // when the replay's read ends (stopped, or through the whole log).
  let watching = false;
  let readAfterClose = 0;
  let readEnded!: () => void;
  const ended = new Promise<void>((resolve) => (readEnded = resolve));
  const countReads = (store: Store): Store =>
    new Proxy(store, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== "function") return value;
        if (prop !== "readCommits") return value.bind(target);
        const read = value as Store["readCommits"];
        return async function* (...args: Parameters<Store["readCommits"]>) {
          if (!watching) return yield* read.apply(target, args);
          try {
            for await (const c of read.apply(target, args)) {
              if (socket.closeCode !== null) readAfterClose++;
              yield c;
            }
          } finally {
            readEnded();
          }
        };
      },
    });
  const hub = await openSqliteHub({ dataDir: dir, wrapStore: countReads });
  try {
    const caller: Caller = { identity: generateKeyPair().publicKey.toString("hex"), accessKey: null };
    const { contract_id: id } = await hub.createContract(caller, { model: null, rules: [] });
    const { head } = await hub.getState(caller, id);
    await hub.push(caller, id, { commits: postsAfter(id, head, 40) });
    // Events the replay produces for the session once the socket is being closed.
    let producedAfterClose = 0;
    const subscribe = hub.subscribe.bind(hub);
    hub.subscribe = (c, cid, since, listener, onClosed) =>
      subscribe(
        c,
        cid,
        since,
        (event) => {
          if (socket.closeCode !== null) producedAfterClose++;
          listener(event);
        },
        onClosed,
      );
    const options: HttpOptions = {
      hub,
      authenticator: new Authenticator({ store: hub.store }),
      registry: new AccessRegistry({ store: hub.store }),
      rateLimit: 0,
      logger: false,
    };
    const session = new SocketSession(socket as unknown as WebSocket, caller, options);
    session.start(
      new RpcDispatcher<SocketContext>(SOCKET_METHODS, {
        maxBatch: 10,
        maxDepth: 64,
        maxContainers: 1_000_000,
        bodyBytes: 1 << 20,
      }),
    );
    watching = true;
    const request = { jsonrpc: "2.0", id: 1, method: "subscribe", params: { contract_id: id, since: 0 } };
    socket.emit("message", Buffer.from(JSON.stringify(request)), false);
    await ended;
    assert.equal(socket.closeCode, 1013);
    assert.deepEqual(
      socket.sent.map((m) => m.id ?? m.method),
      ["hello", 1, "commit"],
    );
    assert.equal(producedAfterClose, 0);
    // At most the commit the replay was reading when the decision was taken; not the other 39.
    assert.ok(readAfterClose <= 1, `${readAfterClose} commits read after the close decision`);
    assert.equal(hub.bus.hasListeners(id), false);
    socket.emit("close");
  } finally {
    await hub.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
