/**
 * Answers a witness and a hub read from each other are bounded (docs/transparency.md,
 * "Witnesses"): a followed hub's checkpoint or consistency proof, and a witness's answer to
 * an add-checkpoint, are small; a peer that answers megabytes (hostile, or not a hub or
 * witness at all) gets an error naming the limit, and its answer is not read to the end.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
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
import { HUGE, type HugeAnswers, hugeAnswers } from "./support/hugeAnswers.js";

const dir = mkdtempSync(join(tmpdir(), "witness-bounded-"));
const peers: HugeAnswers[] = [];
after(async () => {
  for (const peer of peers) await peer.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A peer answering megabytes, chunked (no length announced). */
async function hugePeer(): Promise<HugeAnswers> {
  const peer = await hugeAnswers();
  peers.push(peer);
  return peer;
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
  const hub = await hugePeer();
  const r = await followHub(witness, hub.url);
  assert.equal(r.outcome, "error", JSON.stringify(r).slice(0, 300));
  assert.match(r.message ?? "", /exceeds 65536 bytes/);
  assert.ok(hub.written() < HUGE, `read ${hub.written()} bytes`);
});

test("a witness answering megabytes to an add-checkpoint is refused, naming the limit", async () => {
  const w = await hugePeer();
  await assert.rejects(postAddCheckpoint(w.url, "old 0\n\n"), /exceeds 65536 bytes/);
  assert.ok(w.written() < HUGE, `read ${w.written()} bytes`);
});
