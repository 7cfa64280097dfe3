/**
 * A request that reaches the hub while it shuts down (pipelined behind an in-flight request on
 * a connection the drain waits for) is refused in the error table's form: 503 UNAVAILABLE,
 * `shutting_down`, with Retry-After, on REST; a JSON-RPC error on the RPC port. The in-flight
 * request itself finishes. Real HTTP on loopback, one raw socket.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { test } from "node:test";
import { testApp } from "./support/testApps.js";

/** The responses read from `socket` until the server closes it, split into status, headers and body. */
function responsesOf(text: string): { status: number; headers: string; body: string }[] {
  const out: { status: number; headers: string; body: string }[] = [];
  let rest = text;
  while (rest.startsWith("HTTP/1.1 ")) {
    const end = rest.indexOf("\r\n\r\n");
    const headers = rest.slice(0, end);
    const length = Number(/content-length: (\d+)/i.exec(headers)?.[1] ?? 0);
    out.push({ status: Number(headers.slice(9, 12)), headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

async function duringShutdown(kind: "rest" | "rpc", second: string) {
  const t = await testApp(kind);
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = t.app.server.address() as net.AddressInfo;
  const socket = net.connect(port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  let received = "";
  socket.on("data", (d) => {
    received += d.toString("latin1");
  });
  const closed = new Promise((resolve) => socket.once("close", resolve));
  // The first request is in flight (its body is still coming) when the shutdown starts.
  const body = '{"jsonrpc":"2.0","id":1,"method":"getHealth"}';
  const url = kind === "rest" ? "/contracts" : "/";
  const arrived = new Promise((resolve) => t.app.server.once("request", resolve));
  socket.write(`POST ${url} HTTP/1.1\r\nHost: hub\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
  await arrived;
  const closing = t.app.close();
  // server.close() runs once the app's close has begun: from then on new requests are refused.
  while (t.app.server.listening) await new Promise((resolve) => setImmediate(resolve));
  socket.write(`${body.slice(5)}${second}`);
  await closed;
  await closing;
  await t.hub.close();
  return responsesOf(received);
}

test("REST: a request arriving during shutdown is 503 UNAVAILABLE shutting_down in the table's form", async () => {
  const [first, second] = await duringShutdown("rest", "GET /health HTTP/1.1\r\nHost: hub\r\n\r\n");
  // The in-flight request ran its route (unsigned: 401), it was not cut off.
  assert.equal(first?.status, 401);
  assert.equal(second?.status, 503);
  assert.match(second!.headers, /retry-after: 1/i);
  const answer = JSON.parse(second!.body);
  assert.equal(answer.code, "UNAVAILABLE");
  assert.equal(answer.details.reason, "shutting_down");
});

test("JSON-RPC: a request arriving during shutdown is a JSON-RPC error with UNAVAILABLE", async () => {
  const call = '{"jsonrpc":"2.0","id":2,"method":"getHealth"}';
  const [first, second] = await duringShutdown(
    "rpc",
    `POST / HTTP/1.1\r\nHost: hub\r\nContent-Length: ${call.length}\r\n\r\n${call}`,
  );
  assert.equal(first?.status, 200);
  assert.equal(second?.status, 503);
  const answer = JSON.parse(second!.body);
  assert.equal(answer.error.code, -32053);
  assert.equal(answer.error.data.code, "UNAVAILABLE");
  assert.equal(answer.error.data.details.reason, "shutting_down");
});
