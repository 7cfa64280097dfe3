/**
 * HubClient's `signal` and `timeoutMs` against a real HTTP server on loopback that accepts
 * each request and never answers (or answers its headers and never the rest): the call
 * throws UNAVAILABLE `aborted` or `timeout`, is not retried, and its connection is closed,
 * which the server sees. The test harness bounds each case at 60 s: only a call that goes on
 * waiting reaches it.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { after, test } from "node:test";
import { HubClient } from "../src/client/HubClient.js";
import { ContractError } from "../src/contract/ContractError.js";

const BOUND = { timeout: 60_000 };

interface SilentHub {
  url: string;
  /** Requests received so far. */
  requests: number;
  /** Resolves once every connection opened so far is closed. */
  allClosed(): Promise<void>;
  /** Resolves at the next request received. */
  nextRequest(): Promise<void>;
  server: Server;
}

const hubs: SilentHub[] = [];
after(async () => {
  for (const hub of hubs) {
    hub.server.closeAllConnections();
    await new Promise((resolve) => hub.server.close(resolve));
  }
});

/** A server that holds every request (`headers`: sends the head and a first chunk, never the end). */
async function silentHub(headers = false): Promise<SilentHub> {
  const open = new Set<Socket>();
  const closed: (() => void)[] = [];
  const arrived: (() => void)[] = [];
  const server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    hub.requests++;
    for (const f of arrived.splice(0)) f();
    if (headers) {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"contract_id":');
    }
  });
  server.on("connection", (socket: Socket) => {
    open.add(socket);
    socket.on("close", () => {
      open.delete(socket);
      if (open.size === 0) for (const f of closed.splice(0)) f();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const hub: SilentHub = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: 0,
    server,
    allClosed: () => (open.size === 0 ? Promise.resolve() : new Promise((resolve) => closed.push(resolve))),
    nextRequest: () => new Promise((resolve) => arrived.push(resolve)),
  };
  hubs.push(hub);
  return hub;
}

function unavailable(reason: string) {
  return (err: unknown) => {
    assert.ok(err instanceof ContractError, String(err));
    assert.deepEqual([err.code, err.details?.reason], ["UNAVAILABLE", reason]);
    return true;
  };
}

test(
  "timeoutMs: a GET the hub never answers throws UNAVAILABLE timeout, unretried, its connection closed",
  BOUND,
  async () => {
    const hub = await silentHub();
    const client = new HubClient({ url: hub.url, timeoutMs: 300 });
    await assert.rejects(client.getState("c_silent"), unavailable("timeout"));
    assert.equal(hub.requests, 1);
    await hub.allClosed();
  },
);

test("timeoutMs also bounds an answer whose body never ends", BOUND, async () => {
  const hub = await silentHub(true);
  const client = new HubClient({ url: hub.url, timeoutMs: 300, retries: 0 });
  await assert.rejects(client.createContract({ contract_id: "c_half" }), unavailable("timeout"));
  await hub.allClosed();
});

test(
  "signal: aborting cancels the GET under way (UNAVAILABLE aborted), unretried, its connection closed",
  BOUND,
  async () => {
    const hub = await silentHub();
    const stop = new AbortController();
    const client = new HubClient({ url: hub.url, signal: stop.signal });
    const asked = hub.nextRequest();
    const call = client.getLog("c_silent");
    await asked;
    stop.abort(new Error("the caller stopped waiting"));
    await assert.rejects(call, unavailable("aborted"));
    assert.equal(hub.requests, 1);
    await hub.allClosed();
  },
);

test("signal: a client whose signal has aborted sends nothing, and withKey keeps the signal", BOUND, async () => {
  const hub = await silentHub();
  const stop = new AbortController();
  stop.abort();
  const client = new HubClient({ url: hub.url, signal: stop.signal });
  await assert.rejects(client.health(), unavailable("aborted"));
  await assert.rejects(client.withKey(new Uint8Array(32)).push("c_silent", []), unavailable("aborted"));
  assert.equal(hub.requests, 0);
});
