/**
 * When the explorer subscribes again (web/src/reconnectDelay.ts, web/src/live.ts): the wait
 * doubles from 1 s to 30 s over failures in a row, never falls below the retry hint of a
 * refused `subscribe`, and carries up to a quarter more at random. The refusals fed in are
 * the hub's own: made by its limiters and error table, and captured from a real hub's `/ws`
 * (rate limit, work budget; both clocks pinned). Last, live.ts itself runs in node against a
 * real hub, over the `ws` client in place of the browser's WebSocket: the delays it chooses
 * are reported with its "offline" status, so nothing here waits on or measures time.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { WebSocket } from "ws";
import { AccessRegistry } from "../src/auth/AccessRegistry.js";
import { Authenticator } from "../src/auth/Authenticator.js";
import { ContractError } from "../src/contract/ContractError.js";
import { buildRestApp } from "../src/http/buildRestApp.js";
import type { HttpOptions } from "../src/http/HttpOptions.js";
import { RateLimiter } from "../src/http/RateLimiter.js";
import { toRpcError } from "../src/http/RpcDispatcher.js";
import { toContractError } from "../src/http/toContractError.js";
import type { Hub } from "../src/hub/Hub.js";
import { HeavyWork, workKey } from "../src/hub/heavy/HeavyWork.js";
import { reconnectDelay } from "../web/src/reconnectDelay.js";
import { Actor } from "./hub-fixtures.js";
import { openSqliteHub } from "./support/openSqliteHub.js";

/** The JSON-RPC error a refusal travels as, read back from its JSON as a client gets it. */
function wireError(refuse: () => void): unknown {
  try {
    refuse();
  } catch (err) {
    return JSON.parse(JSON.stringify(toRpcError(toContractError(err))));
  }
  assert.fail("not refused");
}

const retryAfterOf = (error: unknown) =>
  (error as { data: { details: { retry_after: number } } }).data.details.retry_after;

describe("reconnectDelay", () => {
  it("after dropped connections: 1 s doubling to 30 s, with up to a quarter more at random", () => {
    const waits = [1, 2, 3, 4, 5, 6, 7, 50].map((n) => reconnectDelay(n, undefined, 0));
    assert.deepEqual(waits, [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    assert.equal(reconnectDelay(1, undefined, 0.5), 1_125);
    assert.equal(reconnectDelay(6, undefined, 0.999_999), 37_500);
    // Tabs refused together draw different randoms, so they come back spread out.
    const spread = new Set([0, 0.2, 0.4, 0.6, 0.8].map((r) => reconnectDelay(3, undefined, r)));
    assert.equal(spread.size, 5);
  });

  it("a refused subscribe waits at least its retry_after, however few failures came before", () => {
    const now = () => 1_000_000;
    const limiter = new RateLimiter(0.2, 1, now);
    limiter.take("ip:10.0.0.1");
    const rateLimited = wireError(() => limiter.take("ip:10.0.0.1"));
    assert.equal(retryAfterOf(rateLimited), 5);
    assert.equal(reconnectDelay(1, rateLimited, 0), 5_000);
    assert.equal(reconnectDelay(1, rateLimited, 0.5), 5_625);
    // The backoff wins once it is the longer.
    assert.equal(reconnectDelay(4, rateLimited, 0), 8_000);

    const work = new HeavyWork({ workBudgetMs: 5_000, now });
    const caller = { identity: null, accessKey: null, address: "10.0.0.1" };
    work.budget.charge(workKey(caller), 9_000);
    const budget = wireError(() => work.admit(caller));
    assert.equal(retryAfterOf(budget), 48);
    assert.equal(reconnectDelay(1, budget, 0), 48_000);
    assert.equal(reconnectDelay(9, budget, 0), 48_000, "a hint past the 30 s cap is honoured");
  });

  it("a refusal without a hint, or with a malformed one, waits the backoff", () => {
    const tooMany = JSON.parse(
      JSON.stringify(
        toRpcError(new ContractError("RATE_LIMITED", "too many", { reason: "too_many_subscriptions", limit: 100 })),
      ),
    );
    const notFound = JSON.parse(JSON.stringify(toRpcError(new ContractError("NOT_FOUND", "no such contract"))));
    const hints = [-5, 0, "30", null, { s: 3 }].map((retry_after) => ({
      code: -32029,
      message: "x",
      data: { code: "RATE_LIMITED", details: { reason: "rate_limited", retry_after } },
    }));
    for (const refusal of [tooMany, notFound, ...hints, null, "refused", { code: -32029 }]) {
      assert.equal(reconnectDelay(2, refusal, 0), 2_000, JSON.stringify(refusal));
    }
  });

  it("a hint too long for setTimeout is taken as an hour", () => {
    const refusal = { code: -32053, message: "x", data: { code: "UNAVAILABLE", details: { retry_after: 1e12 } } };
    assert.equal(reconnectDelay(1, refusal, 0), 3_600_000);
  });
});

/** A real hub's REST app (the explorer's origin, with `/ws`) on loopback. */
async function serve(opts: { limiter?: RateLimiter; work?: HeavyWork } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "hub-reconnect-"));
  const hub: Hub = await openSqliteHub({ dataDir: dir, ...(opts.work ? { work: opts.work } : {}) });
  const options: HttpOptions = {
    hub,
    authenticator: new Authenticator({ store: hub.store }),
    registry: new AccessRegistry({ store: hub.store }),
    rateLimit: 0,
    ...(opts.limiter ? { rateLimiter: opts.limiter } : {}),
    logger: false,
  };
  const app = await buildRestApp(options);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const { contract_id } = await hub.createContract(new Actor("owner").caller, { model: null, rules: [] });
  return {
    app,
    contractId: contract_id,
    host: `127.0.0.1:${(app.server.address() as { port: number }).port}`,
    close: async () => {
      await app.close();
      await hub.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What the hub answers a new socket's `subscribe` from index 0 (the explorer's request), as sent. */
async function subscribeAnswer(host: string, contractId: string): Promise<{ id?: unknown; error?: unknown }> {
  const ws = new WebSocket(`ws://${host}/ws`);
  const messages: { method?: string; id?: unknown; error?: unknown }[] = [];
  let arrived: () => void = () => {};
  ws.on("message", (data) => {
    messages.push(JSON.parse(String(data)));
    arrived();
  });
  const next = async () => {
    while (messages.length === 0) await new Promise<void>((r) => (arrived = r));
    return messages.shift()!;
  };
  try {
    await once(ws, "open");
    assert.equal((await next()).method, "hello");
    ws.send(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "subscribe", params: { contract_id: contractId, since: 0 } }),
    );
    return await next();
  } finally {
    ws.close();
  }
}

describe("the refusals a real hub sends over /ws", () => {
  it("the rate limit (answered with id null): waited at least its retry_after", async () => {
    // 0.25 requests/s, bursts of 1: the upgrade spends the address's token, the subscribe frame is refused.
    const s = await serve({ limiter: new RateLimiter(0.25, 1, () => 5_000_000) });
    try {
      const answer = await subscribeAnswer(s.host, s.contractId);
      assert.equal(answer.id, null);
      const { data } = answer.error as { data: { code: string; details: { reason: string; retry_after: number } } };
      assert.deepEqual([data.code, data.details.reason, data.details.retry_after], ["RATE_LIMITED", "rate_limited", 4]);
      assert.ok(reconnectDelay(1, answer.error, 0) >= 4_000);
    } finally {
      await s.close();
    }
  });

  it("the work budget a replay counts against (answered with id 1): waited at least its retry_after", async () => {
    const work = new HeavyWork({ workBudgetMs: 5_000, now: () => 7_000_000 });
    const s = await serve({ work });
    try {
      work.budget.charge(workKey({ identity: null, accessKey: null, address: "127.0.0.1" }), 7_000);
      const answer = await subscribeAnswer(s.host, s.contractId);
      assert.equal(answer.id, 1);
      const { data } = answer.error as { data: { code: string; details: { reason: string; retry_after: number } } };
      assert.deepEqual([data.code, data.details.reason], ["RATE_LIMITED", "work_budget"]);
      assert.ok(data.details.retry_after > 1);
      assert.ok(reconnectDelay(1, answer.error, 0) >= data.details.retry_after * 1000);
    } finally {
      await s.close();
    }
  });
});

type Subscribe = (
  contractId: string,
  since: number,
  onCommit: (n: unknown) => void,
  onStatus: (s: string, retryInMs?: number) => void,
) => { stop(): void; retryNow(): void };

describe("live.ts against a real hub", () => {
  const globals = globalThis as Record<string, unknown>;
  const saved = { WebSocket: globals.WebSocket, location: globals.location };
  after(() => Object.assign(globals, saved));

  // The timeout turns a page stuck on "connecting" into a failure rather than a hang.
  it("a rate-limited subscribe: offline for its hint, then live, then the backoff anew", {
    timeout: 60_000,
  }, async () => {
    // 0.5 requests/s, bursts of 2, one token spent beforehand: the upgrade takes the last one and
    // the subscribe is refused (retry_after 2). Once refused the clock moves on 4 s, refilling both.
    let now = 9_000_000;
    const limiter = new RateLimiter(0.5, 2, () => now);
    limiter.take("ip:127.0.0.1");
    const s = await serve({ limiter });
    // The browser globals live.ts reads; live.ts is loaded by path, since the server's type check has no DOM.
    Object.assign(globals, { WebSocket, location: { protocol: "http:", host: s.host } });
    const live = new URL("../web/src/live.ts", import.meta.url).href;
    const { subscribeCommits } = (await import(live)) as { subscribeCommits: Subscribe };
    const statuses: [string, number | undefined][] = [];
    let stop: () => void = () => {};
    try {
      await new Promise<void>((resolve) => {
        ({ stop } = subscribeCommits(
          s.contractId,
          0,
          () => {},
          (status, retryInMs) => {
            statuses.push([status, retryInMs]);
            if (status === "offline" && statuses.filter(([st]) => st === "live").length === 0) now += 4_000;
            else if (status === "live") for (const client of s.app.websocketServer.clients) client.terminate();
            else if (status === "offline") resolve();
          },
        ));
      });
    } finally {
      stop();
      await s.close();
    }
    assert.deepEqual(
      statuses.map(([st]) => st),
      ["connecting", "offline", "connecting", "live", "offline"],
    );
    const refusedWait = statuses[1]![1]!;
    assert.ok(refusedWait >= 2_000 && refusedWait <= 2_500, `refused: ${refusedWait} ms`);
    // One failure since the subscription succeeded, not two: the first step of the backoff.
    const droppedWait = statuses[4]![1]!;
    assert.ok(droppedWait >= 1_000 && droppedWait <= 1_250, `dropped: ${droppedWait} ms`);
  });
});
