/**
 * Answers a witness and a hub read from each other are bounded (docs/transparency.md,
 * "Witnesses"): a followed hub's checkpoint or consistency proof, and a witness's answer to
 * an add-checkpoint, are small; a peer that answers megabytes (hostile, or not a hub or
 * witness at all) gets an error naming the limit, and its answer is not read to the end.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { generateKeyPair } from "../src/contract/keys.js";
import { LogKey } from "../src/tlog/LogKey.js";
import { EMPTY_ROOT } from "../src/tlog/merkle.js";
import { followHub } from "../src/witness/followHub.js";
import { postAddCheckpoint } from "../src/witness/postAddCheckpoint.js";
import { Witness } from "../src/witness/Witness.js";
import { WitnessRecords } from "../src/witness/WitnessRecords.js";

const HUGE = 16 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, "a");
const dir = mkdtempSync(join(tmpdir(), "witness-bounded-"));
const servers: Server[] = [];
after(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A server answering every request with `HUGE` bytes (chunked: no length announced), counting what it could write. */
async function hugeAnswers(): Promise<{ url: string; written: () => number }> {
  let written = 0;
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    let sent = 0;
    const more = () => {
      while (sent < HUGE) {
        sent += CHUNK.length;
        written += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once("drain", more);
      }
      res.end();
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

test("a followed hub answering megabytes for its checkpoint is an error naming the limit", async () => {
  const log = new LogKey(generateKeyPair().seed);
  const witness = new Witness({
    name: "witness.test/bounded",
    seed: generateKeyPair().seed,
    logs: [{ origin: log.origin, publicKey: log.publicKey }],
    records: new WitnessRecords(dir),
  });
  assert.equal(witness.addText(`old 0\n\n${log.sign({ size: 0, root: EMPTY_ROOT })}`).status, 200);
  const hub = await hugeAnswers();
  const r = await followHub(witness, hub.url);
  assert.equal(r.outcome, "error", JSON.stringify(r).slice(0, 300));
  assert.match(r.message ?? "", /exceeds 65536 bytes/);
  assert.ok(hub.written() < HUGE, `read ${hub.written()} bytes`);
});

test("a witness answering megabytes to an add-checkpoint is refused, naming the limit", async () => {
  const w = await hugeAnswers();
  await assert.rejects(postAddCheckpoint(w.url, "old 0\n\n"), /exceeds 65536 bytes/);
  assert.ok(w.written() < HUGE, `read ${w.written()} bytes`);
});
