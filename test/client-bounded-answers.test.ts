/**
 * A client checking a hub reads the hub's checkpoint, log key and proofs up to 64 KiB
 * (docs/transparency.md): each is a few KiB at most, and the hub is the party being checked,
 * so one answering megabytes is refused (UPSTREAM_ERROR `answer_too_large`, naming the limit)
 * and its answer is not read to the end into the client's memory.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { HubClient } from "../src/client/HubClient.js";
import { ContractError } from "../src/contract/ContractError.js";

const HUGE = 16 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, " ");
const servers: Server[] = [];
after(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A "hub" answering every request 200 with `HUGE` bytes of JSON white space (chunked, or with its length announced). */
async function hugeHub(announce: boolean): Promise<{ url: string; written: () => number }> {
  let written = 0;
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", ...(announce ? { "content-length": HUGE + 2 } : {}) });
    let sent = 0;
    const more = () => {
      while (sent < HUGE) {
        sent += CHUNK.length;
        written += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once("drain", more);
      }
      res.end("{}");
    };
    res.on("close", () => {
      sent = HUGE;
    });
    more();
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, written: () => written };
}

for (const announce of [false, true]) {
  test(`a hub answering megabytes for its checkpoint, key or proofs is refused at 64 KiB (${announce ? "length announced" : "chunked"})`, async () => {
    const hub = await hugeHub(announce);
    const client = new HubClient({ url: hub.url, retries: 0 });
    const calls: [string, () => Promise<unknown>][] = [
      ["checkpoint", () => client.checkpoint()],
      ["checkpointKey", () => client.checkpointKey()],
      ["inclusionProof", () => client.inclusionProof("ab".repeat(32), 1)],
      ["consistencyProof", () => client.consistencyProof(1, 2)],
    ];
    for (const [name, call] of calls) {
      const before = hub.written();
      await assert.rejects(call(), (err: unknown) => {
        assert.ok(err instanceof ContractError, `${name}: ${String(err)}`);
        assert.equal(err.code, "UPSTREAM_ERROR", name);
        assert.deepEqual(err.details, { reason: "answer_too_large", limit: 65536 }, name);
        return true;
      });
      assert.ok(hub.written() - before < HUGE, `${name} read the whole answer`);
    }
  });
}
