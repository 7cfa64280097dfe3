/**
 * The hostile-load tests' loopback set-up: a testApp's REST app and a JSON-RPC app on the
 * same hub, both listening on 127.0.0.1, and the probe they all use to show that the event
 * loop took turns during long work: `GET /health` sent at a chosen moment, its answer noted in
 * an order of events the test then checks.
 */
import assert from "node:assert/strict";
import type { FastifyInstance } from "fastify";
import { signRequest } from "../../src/auth/signRequest.js";
import { buildRpcApp } from "../../src/http/buildRpcApp.js";
import type { Store } from "../../src/store/Store.js";
import type { TestApp } from "./testApps.js";

/**
 * The work budget of a hostile-load test's hub: off. These tests show that long work runs in
 * slices, not what the budget refuses (work-budget-*.test.ts do). The budget is charged in
 * elapsed time, so on a loaded machine (a CI run at load 8-11) a file's big pushes can spend
 * its identity's allowance and be refused 429 `work_budget` before the test's point is made.
 */
export const NO_WORK_BUDGET = 0;

/**
 * The hostile-load tests' big value: ~15 MB of strings with some non-ASCII, in 15 parts of
 * 1 MB (a body may be 16 MiB; one string of 15 MB would still be one JSON.parse when its row
 * is read: docs/reliability.md). Built once per test file that imports it.
 */
export const BIG_VALUE: readonly string[] = Array.from({ length: 15 }, (_, i) =>
  `${i}${"x".repeat(1000)}é漢🙂`.repeat(1_000),
);
/** Characters in BIG_VALUE's strings. */
export const BIG_VALUE_CHARS = BIG_VALUE.reduce((n, part) => n + part.length, 0);

export interface Listening {
  restUrl: string;
  rpcUrl: string;
  rpc: FastifyInstance;
  /** Closes the JSON-RPC app, then the test app (and its hub). */
  close(): Promise<void>;
}

/** `t`'s REST app and a JSON-RPC app on its hub, listening on loopback. */
export async function listenRestAndRpc(t: TestApp): Promise<Listening> {
  const rpc = await buildRpcApp(t.options);
  const restUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
  const rpcUrl = await rpc.listen({ host: "127.0.0.1", port: 0 });
  return {
    restUrl,
    rpcUrl,
    rpc,
    close: async () => {
      await rpc.close();
      await t.close();
    },
  };
}

/** POSTs `body` to `url + path`, signed with the access key of `seed`; its status and parsed answer. */
export async function signedPost(
  url: string,
  seed: Uint8Array,
  path: string,
  body: string | Uint8Array,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers = { "content-type": "application/json", ...signRequest(seed, { method: "POST", url: path, body }) };
  const res = await fetch(url + path, { method: "POST", headers, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Sends `GET /health` to `restUrl` now; once it is answered 200, pushes "health" to `order`. */
export function askHealth(restUrl: string, order: string[]): Promise<void> {
  return fetch(`${restUrl}/health`).then(async (res) => {
    assert.equal(res.status, 200);
    await res.text();
    order.push("health");
  });
}

/** Replacements of some of a store's methods, each given the store's own (bound) method. */
export type StoreHooks = { [K in keyof Store]?: (own: Store[K]) => Store[K] };

/**
 * `store` with the methods of `hooks` replaced (each hook is given the store's own method,
 * bound) and every other member the store's, its methods bound: how the hostile-load tests
 * note the moment an append or a read begins.
 */
export function storeWith(store: Store, hooks: StoreHooks): Store {
  const replace = hooks as Record<PropertyKey, ((own: unknown) => unknown) | undefined>;
  return new Proxy(store, {
    get: (target, prop) => {
      const value = Reflect.get(target, prop, target) as unknown;
      const own = typeof value === "function" ? value.bind(target) : value;
      const hook = replace[prop];
      return hook === undefined ? own : hook(own);
    },
  });
}

/**
 * The hook most of those tests use: "append" noted as each append of commits begins, in the
 * order of events `order()` gives at that moment (tests start a new one per case).
 */
export function notingAppends(order: () => string[]): StoreHooks {
  return {
    appendCommits:
      (own) =>
      (...args) => {
        order().push("append");
        return own(...args);
      },
  };
}
