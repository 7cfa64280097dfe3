/**
 * A head the hub's served checkpoint does not cover yet, with a real hub that requires one
 * witness's cosignature and a real witness behind a proxy that can cut it off: the SDK's
 * checkHubLog returns the checkpoint with the head pending (its leaf and since when), keeps
 * the first time across later checks and later heads (a pending head stays owed until
 * proven), fails the inclusion check once the grace is over, and clears it when a cosigned
 * checkpoint proves it. A claimed leaf that contradicts the leaf the hub gave before, or the
 * one it claimed when the head was found pending, is refused at once.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { checkHubLog, type PinnedLogKey, type VerifiedCheckpoint } from "../src/client/checkHubLog.js";
import { HubClient } from "../src/client/HubClient.js";
import { ContractError } from "../src/contract/ContractError.js";
import { encodeHex } from "../src/contract/hex.js";
import { publicKeyFromSeed } from "../src/contract/keys.js";
import { LogKey } from "../src/tlog/LogKey.js";
import { tempDir } from "./cli-support.js";
import { type HubProcess, killAllHubs, startHub } from "./support/hubProcess.js";
import { Writer } from "./support/pgHubs.js";
import { type Answer, json, startTamperingProxy, type TamperingProxy } from "./support/tamperingProxy.js";
import { killAllWitnesses, startWitness } from "./support/witnessProcess.js";

let hub: HubProcess;
/** Between the client and the hub. */
let hubProxy: TamperingProxy;
/** Between the hub and its witness. */
let witnessProxy: TamperingProxy;
let pinned: PinnedLogKey;
let client: HubClient;
const writer = new Writer();
let contractId: string;
let parent: string;

const witnessDown = (path: string, up: Answer): Answer =>
  path === "/add-checkpoint" ? { status: 503, type: "text/plain", body: "down\n" } : up;

/** Appends one commit; returns its hash and the leaf the hub gave it (from the pull). */
async function append(): Promise<{ hash: string; leaf: number }> {
  const c = new HubClient({ url: hub.url, accessKey: writer.seed });
  const [commit] = writer.chain(contractId, parent, 1, `t${randomBytes(3).toString("hex")}`);
  await c.push(contractId, [commit!]);
  parent = commit!.hash;
  const last = (await c.pull(contractId, { since: commit!.parent! })).commits.at(-1)!;
  assert.equal(last.hash, commit!.hash);
  return { hash: last.hash, leaf: last.leaf_index! };
}

/** Waits until the served checkpoint has `size` leaves (bounded: 30 s). */
async function servedSize(size: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const res = await fetch(`${hub.url}/checkpoint`);
    if (res.ok && Number((await res.text()).split("\n")[1]) === size) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`the served checkpoint never reached ${size}`);
}

async function refusal(p: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ContractError, String(err));
    assert.equal(err.code, "CORRUPTED", err.message);
    return err.details ?? {};
  }
  assert.fail("the check passed");
}

before(async () => {
  const base = tempDir("client-pending");
  mkdirSync(join(base, "hub"));
  const seed = randomBytes(32);
  writeFileSync(
    join(base, "hub", "log-key.json"),
    JSON.stringify({ name: "log", seed: encodeHex(seed), public_key: encodeHex(publicKeyFromSeed(seed)) }),
  );
  const log = new LogKey(seed);
  const witness = await startWitness(join(base, "w"), [log.info().verifier_key], ["--name", "witness.test/one"]);
  witnessProxy = await startTamperingProxy(witness.url);
  hub = await startHub(join(base, "hub"), [
    "--witness",
    `${witness.verifierKey}@${witnessProxy.url}`,
    "--witness-interval",
    "100",
  ]);
  hubProxy = await startTamperingProxy(hub.url);
  client = new HubClient({ url: hubProxy.url });
  pinned = { origin: log.origin, public_key: `ed25519:${encodeHex(log.publicKey)}`, witnesses: [witness.verifierKey] };
  const c = new HubClient({ url: hub.url, accessKey: writer.seed });
  await c.register(writer.seed, writer.seed);
  contractId = `c${randomBytes(6).toString("hex")}`;
  const g = writer.genesis(contractId);
  await c.push(contractId, [g]);
  parent = g.hash;
  await servedSize(1);
});
after(async () => {
  await hubProxy.close();
  await witnessProxy.close();
  await killAllHubs();
  await killAllWitnesses();
});

describe("a head the cosigned checkpoint does not cover yet", () => {
  it("is pending from its first check, owed across later checks and heads, refused after the grace, cleared once proven", async () => {
    let kept: VerifiedCheckpoint = await checkHubLog(client, pinned, null, parent);
    assert.deepEqual([kept.size, kept.head_pending], [1, undefined]);

    witnessProxy.rule = witnessDown;
    const b = await append();
    const first = await checkHubLog(client, pinned, kept, b.hash, { headLeafIndex: b.leaf, headWaitMs: 300 });
    assert.deepEqual([first.size, first.head_pending, first.head_pending_leaf], [1, b.hash, b.leaf]);
    assert.ok(Math.abs(first.pending_since! - Date.now()) < 5_000);

    await new Promise((r) => setTimeout(r, 20));
    const again = await checkHubLog(client, pinned, first, b.hash);
    assert.deepEqual(
      [again.head_pending, again.pending_since],
      [b.hash, first.pending_since],
      "the grace is not renewed",
    );

    // A later head does not wipe the debt: the older pending head is still owed, since its first check.
    const c = await append();
    const later = await checkHubLog(client, pinned, again, c.hash, { headLeafIndex: c.leaf });
    assert.deepEqual(
      [later.head_pending, later.head_pending_leaf, later.pending_since],
      [b.hash, b.leaf, first.pending_since],
    );

    const d = await refusal(checkHubLog(client, pinned, later, c.hash, { pendingGraceMs: 10 }));
    assert.deepEqual(
      [d.reason, d.head, d.leaf_index, d.pending_since, d.kept_size, d.hub_size],
      ["log_inclusion", b.hash, b.leaf, first.pending_since, 1, 1],
    );

    witnessProxy.rule = null;
    await servedSize(c.leaf + 1);
    kept = await checkHubLog(client, pinned, later, c.hash, { pendingGraceMs: 10 });
    assert.deepEqual([kept.size, kept.head_pending, kept.pending_since], [c.leaf + 1, undefined, undefined]);
  });

  it("refuses a claimed leaf that contradicts the one the hub gave before or claimed when the head was found pending", async () => {
    const kept = await checkHubLog(client, pinned, null, parent);
    witnessProxy.rule = witnessDown;
    const e = await append();
    const claim = (leaf: number) => (path: string, up: Answer) =>
      path === "/proofs/inclusion" && up.status === 400
        ? json(400, { ...JSON.parse(up.body), details: { ...JSON.parse(up.body).details, leaf_index: leaf } })
        : up;

    hubProxy.rule = claim(1e9);
    const d = await refusal(checkHubLog(client, pinned, kept, e.hash, { headLeafIndex: e.leaf }));
    assert.deepEqual([d.reason, d.head, d.leaf_index], ["log_inclusion", e.hash, 1e9]);

    // Not knowing the leaf, the client records the claim; the hub's true answer then contradicts it.
    const pending = await checkHubLog(client, pinned, kept, e.hash);
    assert.deepEqual([pending.head_pending, pending.head_pending_leaf], [e.hash, 1e9]);
    hubProxy.rule = null;
    const later = await refusal(checkHubLog(client, pinned, pending, e.hash));
    assert.deepEqual([later.reason, later.leaf_index], ["log_inclusion", e.leaf]);

    // A leaf the checkpoint holds is no reason for a missing proof.
    hubProxy.rule = claim(0);
    assert.equal((await refusal(checkHubLog(client, pinned, kept, e.hash))).reason, "log_inclusion");
    hubProxy.rule = null;
    witnessProxy.rule = null;
  });
});
