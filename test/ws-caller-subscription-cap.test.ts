/**
 * Subscriptions one caller holds at once across all its WebSocket connections are capped
 * (docs/security.md, "Subscriptions per caller"): per identity when authenticated, per client
 * address when anonymous. The per-connection cap alone let one address hold 100 anonymous
 * connections of 100 subscriptions each (10,000 subscriptions of one contract), and an
 * identity any number of connections; every commit of that contract then built one event per
 * subscription. Past the cap `subscribe` is refused with RATE_LIMITED
 * `too_many_subscriptions`, `details.scope` "identity" or "address"; a subscription's place is
 * freed when it is unsubscribed, closed, or its socket closes. Real HTTP and WebSocket on
 * loopback, a real SQLite file.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import WebSocket from "ws";
import { loadStartConfig } from "../src/cli/config.js";
import type { Io } from "../src/cli/Io.js";
import { startCommand } from "../src/cli/startCommand.js";
import { HubClient } from "../src/client/HubClient.js";
import { HubSocket } from "../src/client/HubSocket.js";
import type { ContractError } from "../src/contract/ContractError.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { startLiveHub } from "./e2e-transports.js";
import { socketCall } from "./support/socketCall.js";

const closers: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function liveHub(extra: { callerSubscriptions?: number; socketSubscriptions?: number } = {}) {
  const live = await startLiveHub({ registrationLimit: 0, ...extra });
  closers.push(() => live.close());
  const servers = live.servers;
  const anonymous = live.rest;
  /** A new identity with one access key; `key()` registers another key of it. */
  const identity = async () => {
    const seed = generateKeyPair().seed;
    const key = async () => {
      const access = generateKeyPair();
      await anonymous.register(seed, access.seed);
      return access;
    };
    return { key };
  };
  const owner = await identity();
  const ownerKey = await owner.key();
  const client = anonymous.withKey(ownerKey.seed);
  const { contract_id: id } = await client.createContract({ model: null, rules: [] });
  return { servers, client, id, owner, ownerKey, identity };
}

/** A socket closed when the file ends, whatever fails. */
async function open(url: string, accessSeed?: Uint8Array): Promise<HubSocket> {
  const socket = await HubSocket.connect(url, accessSeed);
  closers.push(() => socket.close());
  return socket;
}

function refusedAt(limit: number, scope: string) {
  return (e: ContractError) =>
    e.code === "RATE_LIMITED" &&
    e.details?.reason === "too_many_subscriptions" &&
    e.details.scope === scope &&
    e.details.limit === limit;
}

/** Subscribes `n` times; the ids. */
async function subscribeMany(socket: HubSocket, id: string, n: number): Promise<string[]> {
  const subs: string[] = [];
  for (let i = 0; i < n; i++) subs.push(await socket.subscribe(id, () => {}));
  return subs;
}

/**
 * Opens anonymous (or `accessSeed`'s) sockets until one takes `n` subscriptions: places freed
 * by sockets that just closed come back once the hub has seen them close (bounded).
 */
async function eventuallySubscribe(url: string, id: string, n: number, accessSeed?: Uint8Array): Promise<HubSocket> {
  for (let attempt = 0; ; attempt++) {
    const socket = await open(url, accessSeed);
    try {
      await subscribeMany(socket, id, n);
      return socket;
    } catch (err) {
      socket.close();
      if (attempt > 200 || (err as ContractError).code !== "RATE_LIMITED") throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** A raw anonymous socket past its hello. */
async function rawSocket(url: string): Promise<WebSocket> {
  const ws = new WebSocket(`${url.replace("http", "ws")}/ws`);
  closers.push(() => ws.terminate());
  await new Promise((resolve, reject) => {
    ws.once("message", resolve);
    ws.once("error", reject);
  });
  return ws;
}

function subscribeBatch(id: string, n: number, since?: number) {
  return Array.from({ length: n }, (_, i) => ({
    jsonrpc: "2.0",
    id: i,
    method: "subscribe",
    params: { contract_id: id, ...(since !== undefined ? { since } : {}) },
  }));
}

describe("subscriptions per caller, across connections", () => {
  it("an identity's subscriptions count together over its connections, keys and both ports", async () => {
    const { servers, id, owner, ownerKey, identity } = await liveHub({ callerSubscriptions: 5 });
    const secondKey = await owner.key();
    const a = await open(servers.restUrl, ownerKey.seed);
    const b = await open(servers.rpcUrl!, secondKey.seed);
    const aSubs = await subscribeMany(a, id, 3);
    await subscribeMany(b, id, 2);
    const c = await open(servers.restUrl, ownerKey.seed);
    await assert.rejects(
      c.subscribe(id, () => {}),
      refusedAt(5, "identity"),
    );
    // Another identity, and anonymous callers from the same address, have their own places.
    const stranger = await (await identity()).key();
    await subscribeMany(await open(servers.restUrl, stranger.seed), id, 5);
    await subscribeMany(await open(servers.restUrl), id, 5);
    // An unsubscribe anywhere frees a place for every connection of the identity.
    await a.unsubscribe(aSubs[0]!);
    await c.subscribe(id, () => {});
    await assert.rejects(
      b.subscribe(id, () => {}),
      refusedAt(5, "identity"),
    );
  });

  it("anonymous subscriptions count per client address; a closed socket frees its places", async () => {
    const { servers, id } = await liveHub({ callerSubscriptions: 5 });
    const a = await open(servers.restUrl);
    const b = await open(servers.rpcUrl!);
    await subscribeMany(a, id, 3);
    await subscribeMany(b, id, 2);
    const c = await open(servers.restUrl);
    await assert.rejects(
      c.subscribe(id, () => {}),
      refusedAt(5, "address"),
    );
    a.close();
    await eventuallySubscribe(servers.restUrl, id, 3);
    await assert.rejects(
      c.subscribe(id, () => {}),
      refusedAt(5, "address"),
    );
  });

  it("a batch past the cap: the calls past it are refused and hold no place", async () => {
    const { servers, id } = await liveHub({ callerSubscriptions: 5 });
    const ws = await rawSocket(servers.restUrl);
    const answers = (await socketCall(ws, subscribeBatch(id, 7))) as Array<{
      result?: { subscription: string };
      error?: { code: number; data?: { code: string; details?: Record<string, unknown> } };
    }>;
    assert.equal(answers.filter((a) => a.result !== undefined).length, 5);
    const refused = answers.filter((a) => a.error !== undefined);
    assert.equal(refused.length, 2);
    for (const answer of refused) {
      assert.equal(answer.error?.code, -32029);
      assert.equal(answer.error?.data?.code, "RATE_LIMITED");
      assert.deepEqual(
        [answer.error?.data?.details?.reason, answer.error?.data?.details?.scope, answer.error?.data?.details?.limit],
        ["too_many_subscriptions", "address", 5],
      );
    }
    // The five held are all there is: unsubscribing them lets exactly five be made again.
    const held = answers.flatMap((a) => (a.result ? [a.result.subscription] : []));
    for (const [i, subscription] of held.entries()) {
      const answer = (await socketCall(ws, {
        jsonrpc: "2.0",
        id: 100 + i,
        method: "unsubscribe",
        params: { subscription },
      })) as {
        result?: unknown;
      };
      assert.deepEqual(answer.result, { unsubscribed: true });
    }
    const again = (await socketCall(ws, subscribeBatch(id, 6))) as Array<{ result?: unknown; error?: unknown }>;
    assert.deepEqual(
      again.map((a) => a.result !== undefined),
      [true, true, true, true, true, false],
    );
  });

  it("the per-connection refusal says scope connection", async () => {
    const { servers, id } = await liveHub({ callerSubscriptions: 5, socketSubscriptions: 2 });
    const a = await open(servers.restUrl);
    await subscribeMany(a, id, 2);
    await assert.rejects(
      a.subscribe(id, () => {}),
      refusedAt(2, "connection"),
    );
    await subscribeMany(await open(servers.restUrl), id, 2);
  });

  it("places never leak: sockets closed with subscriptions held, in flight or replaying", async () => {
    const { servers, client, id } = await liveHub({ callerSubscriptions: 5 });
    for (let i = 0; i < 20; i++)
      await client.submitCommit(id, { contract_id: id, method: "post", path: `/n${i}.text`, value: "v" });
    for (let round = 0; round < 15; round++) {
      const ws = await rawSocket(servers.restUrl);
      if (round % 3 === 0) {
        // Closed once its subscriptions are answered.
        await socketCall(ws, subscribeBatch(id, 5));
        ws.close();
      } else if (round % 3 === 1) {
        // Closed while its subscribe calls (with a replay of the log) may still be running.
        ws.send(JSON.stringify(subscribeBatch(id, 5, 0)));
        ws.terminate();
      } else {
        // Closed right after the frame is sent, by a close handshake.
        ws.send(JSON.stringify(subscribeBatch(id, 5)));
        ws.close();
      }
    }
    const socket = await eventuallySubscribe(servers.restUrl, id, 5);
    await assert.rejects(
      socket.subscribe(id, () => {}),
      refusedAt(5, "address"),
    );
  });

  it("a subscription closed by its key's revocation frees its place", async () => {
    const { servers, client, id, owner, ownerKey } = await liveHub({ callerSubscriptions: 5 });
    const socket = await open(servers.restUrl, ownerKey.seed);
    const closed: string[] = [];
    for (let i = 0; i < 5; i++) await socket.subscribe(id, () => {}, { onClosed: (reason) => closed.push(reason) });
    const secondKey = await owner.key();
    const other = await open(servers.restUrl, secondKey.seed);
    await assert.rejects(
      other.subscribe(id, () => {}),
      refusedAt(5, "identity"),
    );
    await client.revoke(ownerKey.publicKey.toString("hex"));
    for (let i = 0; closed.length < 5; i++) {
      if (i > 2000) assert.fail(`closed ${closed.length}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.deepEqual(closed, Array(5).fill("access_key_revoked"));
    // The revoked socket is open still (anonymous now); its closed subscriptions hold nothing.
    await subscribeMany(other, id, 5);
    await assert.rejects(
      other.subscribe(id, () => {}),
      refusedAt(5, "identity"),
    );
  });

  it("0 turns the cap off", async () => {
    const { servers, id } = await liveHub({ callerSubscriptions: 0, socketSubscriptions: 3 });
    for (let i = 0; i < 3; i++) await subscribeMany(await open(servers.restUrl), id, 3);
  });

  it("by default 1,000 per caller", async () => {
    const { servers, id } = await liveHub();
    for (let i = 0; i < 10; i++) {
      const ws = await rawSocket(servers.restUrl);
      const answers = (await socketCall(ws, subscribeBatch(id, 100))) as Array<{ result?: unknown }>;
      assert.equal(answers.filter((a) => a.result !== undefined).length, 100);
    }
    const last = await open(servers.restUrl);
    await assert.rejects(
      last.subscribe(id, () => {}),
      refusedAt(1000, "address"),
    );
  });
});

describe("contract-hub start --caller-subscriptions", () => {
  it("flag, HUB_CALLER_SUBSCRIPTIONS and default; bad values are usage errors", () => {
    assert.equal(loadStartConfig({}, {}).callerSubscriptions, 1000);
    assert.equal(loadStartConfig({}, { HUB_CALLER_SUBSCRIPTIONS: "0" }).callerSubscriptions, 0);
    assert.equal(
      loadStartConfig({ callerSubscriptions: "7" }, { HUB_CALLER_SUBSCRIPTIONS: "3" }).callerSubscriptions,
      7,
    );
    for (const bad of ["-1", "1.5", "x"])
      assert.throws(() => loadStartConfig({ callerSubscriptions: bad }, {}), /--caller-subscriptions/);
  });

  it("reaches the served ports", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "ws-caller-cap-start-"));
    const out: string[] = [];
    const io: Io = { out: (s) => void out.push(s), err: () => {} };
    let stop = () => {};
    const stopped = new Promise<void>((r) => {
      stop = r;
    });
    const running = startCommand({ port: "0", rpcPort: "0", dataDir: dir, callerSubscriptions: "2" }, io, {
      version: "0.1.0",
      env: { HUB_CALLER_SUBSCRIPTIONS: "9", HUB_LOG_LEVEL: "silent" },
      stop: stopped,
    });
    t.after(async () => {
      stop();
      await running.catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    });
    for (let i = 0; !/REST\s+\S+/.test(out.join("\n")); i++) {
      if (i > 1000) assert.fail("start printed no address");
      await new Promise((r) => setTimeout(r, 10));
    }
    const rest = /REST\s+(\S+)/.exec(out.join("\n"))![1]!;
    const anonymous = new HubClient({ url: rest, retries: 0 });
    const access = generateKeyPair();
    await anonymous.register(generateKeyPair().seed, access.seed);
    const { contract_id: id } = await anonymous.withKey(access.seed).createContract({ model: null, rules: [] });
    await subscribeMany(await open(rest), id, 1);
    await subscribeMany(await open(rest), id, 1);
    await assert.rejects(
      (await open(rest)).subscribe(id, () => {}),
      refusedAt(2, "address"),
    );
  });
});
