/**
 * `verify --remote` never says "ok" for a head whose inclusion the hub does not prove, beyond
 * the grace. Against real hub processes: a hub seen through a proxy that answers every
 * inclusion query with "the leaf is beyond the checkpoint" is refused at once (its checkpoint
 * carries no cosignature, so it has no reason to lag), exit 1, and nothing is kept; a hub
 * whose witness is cut off leaves the pushed head pending, which verify shows as such, fails
 * once the grace since the first check is over, and passes again once a cosigned checkpoint
 * covers the head. A working copy keeps the leaf the hub gave its head at push, pull and
 * clone, so a cosigned hub that says the head is a later leaf than that is refused at once.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { encodeHex } from "../src/contract/hex.js";
import { publicKeyFromSeed } from "../src/contract/keys.js";
import { LogKey } from "../src/tlog/LogKey.js";
import { Actor, tempDir } from "./cli-support.js";
import { killAllHubs, startHub } from "./support/hubProcess.js";
import { type Answer, json, startTamperingProxy, type TamperingProxy } from "./support/tamperingProxy.js";
import { killAllWitnesses, startWitness } from "./support/witnessProcess.js";

interface LogState {
  checkpoint: { size: number; head_pending?: string; head_pending_leaf?: number; pending_since?: number };
}
interface ErrorDoc {
  code: string;
  details: { reason: string; head: string; leaf_index: number; pending_since?: number };
}
interface VerifyDoc {
  ok: boolean;
  log_size: number;
  head: string;
  head_pending?: { hash: string; leaf_index: number; since: string; prove_by: string };
}

const proxies: TamperingProxy[] = [];
after(async () => {
  for (const p of proxies) await p.close();
  await killAllHubs();
  await killAllWitnesses();
});

const logFile = (wc: string) => join(wc, ".contract", "log.json");
const headOf = (wc: string) =>
  (JSON.parse(readFileSync(join(wc, ".contract", "origin.json"), "utf8")) as { head: string }).head;
const logState = (wc: string) => JSON.parse(readFileSync(logFile(wc), "utf8")) as LogState;

/** A working copy of a notes contract made by a fresh actor on `hubUrl`, with `pins` passed to init. */
async function workingCopy(base: string, hubUrl: string, pins: string[] = []): Promise<{ actor: Actor; wc: string }> {
  const actor = new Actor("alice", base, hubUrl);
  await actor.ok(["keygen", "--name", "alice"]);
  await actor.ok(["register", "--key", "alice"]);
  writeFileSync(join(base, "notes.modality"), "model Notes {\n  initial open\n  open -> open []\n}\n");
  const model = join(base, "notes.modality");
  await actor.ok(["init", "notes", "--model", model, "--party", "author=alice", "--key", "alice", ...pins]);
  return { actor, wc: join(actor.root, "notes") };
}

/** The leaf index the working copy keeps for its head commit (the hub's head as last seen). */
function headLeaf(wc: string): number | undefined {
  const origin = JSON.parse(readFileSync(join(wc, ".contract", "origin.json"), "utf8")) as { length: number };
  const file = join(wc, ".contract", "commits", `${String(origin.length - 1).padStart(10, "0")}.json`);
  return (JSON.parse(readFileSync(file, "utf8")) as { leafIndex?: number }).leafIndex;
}

/** A hub process whose checkpoints wait for the cosignature of one witness process (running). */
async function hubWithWitness(base: string) {
  mkdirSync(join(base, "hub"));
  const seed = randomBytes(32);
  writeFileSync(
    join(base, "hub", "log-key.json"),
    JSON.stringify({ name: "log", seed: encodeHex(seed), public_key: encodeHex(publicKeyFromSeed(seed)) }),
  );
  const witness = await startWitness(join(base, "w"), [new LogKey(seed).info().verifier_key]);
  const hub = await startHub(join(base, "hub"), [
    "--witness",
    `${witness.verifierKey}@${witness.url}`,
    "--witness-interval",
    "100",
  ]);
  return { hub, witness };
}

describe("verify --remote and a head the hub does not prove", () => {
  it("refuses a hub that dodges every inclusion proof, without waiting and without keeping anything", async () => {
    const base = tempDir("cli-dodge");
    const hub = await startHub(join(base, "hub"));
    const proxy = await startTamperingProxy(hub.url);
    proxies.push(proxy);
    const { actor, wc } = await workingCopy(base, hub.url);
    await actor.ok(["commit", "--post", "/notes/x.text", "hi"], wc);
    await actor.ok(["push"], wc);
    const before = readFileSync(logFile(wc), "utf8");
    // Waiting for a checkpoint would ask for the proof again every 100 ms: counted, not timed.
    let asked = 0;
    proxy.rule = (path: string, up: Answer) => {
      if (path !== "/proofs/inclusion") return up;
      asked++;
      return json(400, { error: "later", code: "INVALID_REQUEST", details: { reason: "tree_size", leaf_index: 1e9 } });
    };
    const r = await actor.run(["verify", "--remote", "--hub", proxy.url, "--json"], wc);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const doc = r.json<ErrorDoc>();
    assert.deepEqual([doc.code, doc.details.reason, doc.details.leaf_index], ["CORRUPTED", "log_inclusion", 1e9]);
    assert.equal(asked, 1, "refused without waiting for a checkpoint");
    assert.equal(readFileSync(logFile(wc), "utf8"), before, "nothing kept");
    assert.equal((await actor.ok<VerifyDoc>(["verify", "--remote"], wc)).head_pending, undefined);
  });

  it("keeps the head's leaf from push, pull and clone, and refuses at once a cosigned hub that moves it past the checkpoint", async () => {
    const base = tempDir("cli-head-leaf");
    const { hub, witness } = await hubWithWitness(base);
    const proxy = await startTamperingProxy(hub.url);
    proxies.push(proxy);
    const { actor, wc } = await workingCopy(base, hub.url, ["--witness", witness.verifierKey]);
    assert.equal(headLeaf(wc), 0, "init keeps the genesis's leaf");
    const id = (JSON.parse(readFileSync(join(wc, ".contract", "config.json"), "utf8")) as { contract_id: string })
      .contract_id;
    await actor.ok(["clone", `${hub.url}/${id}`, "copy"]);
    const copy = join(actor.root, "copy");
    assert.equal(headLeaf(copy), 0, "clone keeps the head's leaf");
    await actor.ok(["commit", "--post", "/notes/x.text", "hi"], wc);
    await actor.ok(["push"], wc);
    assert.equal(headLeaf(wc), 1, "push takes the hub's copy with its leaf");
    await actor.ok(["pull"], copy);
    assert.equal(headLeaf(copy), 1, "pull keeps the pulled head's leaf");
    const size = logState(wc).checkpoint.size;
    assert.equal(size, 2, "the cosigned checkpoint covers the pushed head");

    // The hub now says the head is a leaf past its (cosigned) checkpoint, not the leaf it gave.
    const claimed = size + 5;
    let asked = 0;
    proxy.rule = (path: string, up: Answer) => {
      if (path !== "/proofs/inclusion") return up;
      asked++;
      return json(400, {
        error: "later",
        code: "INVALID_REQUEST",
        details: { reason: "tree_size", leaf_index: claimed },
      });
    };
    const r = await actor.run(["verify", "--remote", "--hub", proxy.url, "--json"], wc);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const doc = r.json<ErrorDoc>();
    assert.deepEqual(
      [doc.code, doc.details.reason, doc.details.head, doc.details.leaf_index],
      ["CORRUPTED", "log_inclusion", headOf(wc), claimed],
    );
    assert.equal(asked, 1, "refused without waiting for a checkpoint");

    // A working copy written before leaves were kept still loads and checks the hub.
    const commits = join(copy, ".contract", "commits");
    for (const name of readdirSync(commits)) {
      const file = join(commits, name);
      const { leafIndex: _, ...older } = JSON.parse(readFileSync(file, "utf8")) as { leafIndex?: number };
      writeFileSync(file, JSON.stringify(older));
    }
    assert.equal(headLeaf(copy), undefined);
    assert.equal((await actor.ok<unknown[]>(["log"], copy)).length, 2);
    assert.equal((await actor.ok<VerifyDoc>(["verify", "--remote"], copy)).ok, true);
  });

  it("shows a pending head, fails it after the grace, and passes once a cosigned checkpoint covers it", async () => {
    const base = tempDir("cli-pending");
    mkdirSync(join(base, "hub"));
    const seed = randomBytes(32);
    writeFileSync(
      join(base, "hub", "log-key.json"),
      JSON.stringify({ name: "log", seed: encodeHex(seed), public_key: encodeHex(publicKeyFromSeed(seed)) }),
    );
    const witness = await startWitness(join(base, "w"), [new LogKey(seed).info().verifier_key]);
    const cut = await startTamperingProxy(witness.url);
    proxies.push(cut);
    const hub = await startHub(join(base, "hub"), [
      "--witness",
      `${witness.verifierKey}@${cut.url}`,
      "--witness-interval",
      "100",
    ]);
    const { actor, wc } = await workingCopy(base, hub.url, ["--witness", witness.verifierKey]);
    assert.equal(logState(wc).checkpoint.head_pending, undefined);

    cut.rule = (path: string, up: Answer) =>
      path === "/add-checkpoint" ? { status: 503, type: "text/plain", body: "down\n" } : up;
    await actor.ok(["commit", "--post", "/notes/x.text", "hi"], wc);
    const pushed = await actor.ok<{ head: string; log_size: number }>(["push"], wc);
    const state = logState(wc).checkpoint;
    assert.deepEqual([state.head_pending, state.head_pending_leaf, state.size], [pushed.head, 1, 1]);

    const shown = await actor.ok<VerifyDoc>(["verify", "--remote"], wc);
    assert.equal(shown.ok, true);
    assert.deepEqual([shown.head_pending?.hash, shown.head_pending?.leaf_index], [pushed.head, 1]);
    assert.equal(Date.parse(shown.head_pending!.since), state.pending_since);
    assert.equal(Date.parse(shown.head_pending!.prove_by), state.pending_since! + 10 * 60_000);
    assert.equal(logState(wc).checkpoint.pending_since, state.pending_since, "a later check does not renew the grace");

    // Eleven minutes later, as far as the working copy knows.
    const old = state.pending_since! - 11 * 60_000;
    const file = JSON.parse(readFileSync(logFile(wc), "utf8")) as LogState;
    file.checkpoint.pending_since = old;
    writeFileSync(logFile(wc), JSON.stringify(file));
    const r = await actor.run(["verify", "--remote", "--json"], wc);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const doc = r.json<ErrorDoc>();
    assert.deepEqual(
      [doc.code, doc.details.reason, doc.details.head, doc.details.leaf_index, doc.details.pending_since],
      ["CORRUPTED", "log_inclusion", pushed.head, 1, old],
    );

    cut.rule = null;
    const proven = await actor.ok<VerifyDoc>(["verify", "--remote"], wc);
    assert.deepEqual([proven.ok, proven.log_size, proven.head_pending], [true, 2, undefined]);
    assert.equal(logState(wc).checkpoint.head_pending, undefined);
  });
});
