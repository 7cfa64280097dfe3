/**
 * The hostile-load tests' loopback set-up: a testApp's REST app and a JSON-RPC app on the
 * same hub, both listening on 127.0.0.1, and the probe they all use to show that the event
 * loop took turns during long work: `GET /health` sent at a chosen moment, its answer noted in
 * an order of events the test then checks.
 */
import assert from "node:assert/strict";
import type { FastifyInstance } from "fastify";
import { buildRpcApp } from "../../src/http/buildRpcApp.js";
import type { TestApp } from "./testApps.js";

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

/** Sends `GET /health` to `restUrl` now; once it is answered 200, pushes "health" to `order`. */
export function askHealth(restUrl: string, order: string[]): Promise<void> {
  return fetch(`${restUrl}/health`).then(async (res) => {
    assert.equal(res.status, 200);
    await res.text();
    order.push("health");
  });
}
