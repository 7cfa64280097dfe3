/**
 * A hub that requires k witness cosignatures, with real hub and witness processes on
 * loopback: two witnesses and quorum 2 give cosigned checkpoints (each cosignature checked
 * against the C2SP rules re-derived in test/support); with one witness down the checkpoint
 * lags but stays valid, and /checkpoint/key says why; the command line pins witnesses at init
 * and clone and refuses a checkpoint without their cosignatures by name (exit 1); a hub whose
 * data directory was put back to an older copy gets no cosignature and serves no checkpoint
 * at all (503) rather than an uncosigned one; a PostgreSQL hub works the same way.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { encodeHex } from "../src/contract/hex.js";
import { publicKeyFromSeed } from "../src/contract/keys.js";
import { splitNote, verifyCheckpoint } from "../src/tlog/checkpoint.js";
import { parseWitnessVerifierKey, witnessVerifierKey } from "../src/tlog/cosignature.js";
import { LogKey } from "../src/tlog/LogKey.js";
import { Actor, tempDir } from "./cli-support.js";
import { checkCosignatureLine } from "./support/cosignatureReference.js";
import { type HubProcess, killAllHubs, startHub } from "./support/hubProcess.js";
import { testDatabase } from "./support/pg.js";
import { grow, killAllWitnesses, startWitness, type WitnessProcess } from "./support/witnessProcess.js";

interface KeyDoc {
  witnesses: {
    quorum: number;
    cosigned_size: number | null;
    tree_size: number | null;
    witnesses: { name: string; cosigned_size: number | null; error: string | null }[];
  };
}

/** A log key file written before the hub starts, so the witnesses can be told the log's key. */
function logKeyFile(path: string): LogKey {
  const seed = randomBytes(32);
  writeFileSync(
    path,
    JSON.stringify({ name: "log", seed: encodeHex(seed), public_key: encodeHex(publicKeyFromSeed(seed)) }),
  );
  return new LogKey(seed);
}

const witnessArgs = (ws: readonly WitnessProcess[], quorum: number) => [
  ...ws.flatMap((w) => ["--witness", `${w.verifierKey}@${w.url}`]),
  "--witness-quorum",
  String(quorum),
  "--witness-interval",
  "100",
];

const keyDoc = async (hub: HubProcess) => (await (await fetch(`${hub.url}/checkpoint/key`)).json()) as KeyDoc;

/** Polls until `ok` holds of the hub's /checkpoint/key document (bounded: 30 s), and returns it. */
async function until(hub: HubProcess, ok: (doc: KeyDoc) => boolean): Promise<KeyDoc> {
  let doc = await keyDoc(hub);
  for (let i = 0; i < 300 && !ok(doc); i++) {
    await new Promise((r) => setTimeout(r, 100));
    doc = await keyDoc(hub);
  }
  assert.ok(ok(doc), JSON.stringify(doc));
  return doc;
}

/** The served checkpoint, its log signature checked, and the witness names whose cosignatures pass the reference check. */
async function served(hub: HubProcess, log: LogKey, ws: readonly WitnessProcess[]) {
  const res = await fetch(`${hub.url}/checkpoint`);
  assert.equal(res.status, 200);
  const note = await res.text();
  const cp = verifyCheckpoint(note, log.origin, log.publicKey);
  const { body } = splitNote(note);
  const cosigned: string[] = [];
  for (const w of ws) {
    const name = w.verifierKey.split("+")[0]!;
    const line = note.split("\n").find((l) => l.startsWith(`\u2014 ${name} `));
    if (line === undefined) continue;
    checkCosignatureLine(line, w.verifierKey, body);
    cosigned.push(name);
  }
  return { size: cp.size, cosigned, note };
}

let base: string;
let log: LogKey;
let hub: HubProcess;
let w1: WitnessProcess;
let w2: WitnessProcess;
let alice: Actor;

before(async () => {
  base = tempDir("quorum");
  mkdirSync(join(base, "hub"));
  log = logKeyFile(join(base, "hub", "log-key.json"));
  const vkey = log.info().verifier_key;
  w1 = await startWitness(join(base, "w1"), [vkey], ["--name", "witness.test/one"]);
  w2 = await startWitness(join(base, "w2"), [vkey], ["--name", "witness.test/two"]);
  hub = await startHub(join(base, "hub"), witnessArgs([w1, w2], 2));
  alice = new Actor("alice", base, hub.url);
  await alice.ok(["keygen", "--name", "alice"]);
  await alice.ok(["register", "--key", "alice"]);
  writeFileSync(join(base, "notes.modality"), "model Notes {\n  initial open\n  open -> open []\n}\n");
});
after(async () => {
  await killAllHubs();
  await killAllWitnesses();
});

describe("a hub that requires 2 of 2 witness cosignatures", () => {
  it("serves checkpoints that carry both witnesses' cosignatures", async () => {
    await grow(hub.url, 3);
    const doc = await until(hub, (d) => d.witnesses.cosigned_size === 3);
    assert.equal(doc.witnesses.quorum, 2);
    assert.deepEqual(
      doc.witnesses.witnesses.map((w) => [w.name, w.cosigned_size, w.error]),
      [
        ["witness.test/one", 3, null],
        ["witness.test/two", 3, null],
      ],
    );
    const cp = await served(hub, log, [w1, w2]);
    assert.deepEqual([cp.size, cp.cosigned], [3, ["witness.test/one", "witness.test/two"]]);
  });

  it("keeps serving the last cosigned checkpoint while a witness is down, and says why", async () => {
    await w2.stop();
    await grow(hub.url, 2);
    const doc = await until(
      hub,
      (d) => d.witnesses.tree_size === 5 && /unreachable/.test(d.witnesses.witnesses[1]!.error ?? ""),
    );
    assert.equal(doc.witnesses.cosigned_size, 3);
    const cp = await served(hub, log, [w1, w2]);
    assert.deepEqual([cp.size, cp.cosigned.length], [3, 2], "older, but cosigned by both");
    w2 = await startWitness(w2.dataDir, [log.info().verifier_key], ["--name", "witness.test/two"]);
    // The witness is at the same address only by chance; the hub still knows the old one.
  });

  it("the command line pins the witnesses at init and clone, and refuses a checkpoint without them by name", async () => {
    // Restart the hub with the witness's new address; it comes back cosigned.
    await hub.stop();
    hub = await startHub(hub.dataDir, witnessArgs([w1, w2], 2));
    alice = new Actor("alice", base, hub.url);
    const pins = ["--witness", w1.verifierKey, "--witness", w2.verifierKey];
    const made = await alice.ok<{ contract_id: string }>([
      "init",
      "notes",
      "--model",
      join(base, "notes.modality"),
      "--party",
      "author=alice",
      "--key",
      "alice",
      ...pins,
    ]);
    const wc = join(alice.root, "notes");
    const state = JSON.parse(readFileSync(join(wc, ".contract", "log.json"), "utf8")) as {
      witnesses: string[];
      witness_quorum: number;
      checkpoint: { size: number; head_pending?: string };
    };
    assert.deepEqual([state.witnesses, state.witness_quorum], [[w1.verifierKey, w2.verifierKey], 2]);
    assert.equal(state.checkpoint.head_pending, undefined, "init waited for a cosigned checkpoint with the genesis");
    assert.equal(state.checkpoint.size, 6);
    await alice.ok(["commit", "--post", "/notes/a.text", "one"], wc);
    await alice.ok(["push"], wc);
    const verified = await alice.ok<{ ok: boolean; log_size: number }>(["verify", "--remote"], wc);
    assert.deepEqual([verified.ok, verified.log_size], [true, 7]);

    // A witness this hub does not use: its cosignature is never there.
    const stranger = await startWitness(join(base, "w3"), [log.info().verifier_key], ["--name", "witness.test/three"]);
    const r = await alice.run([
      "clone",
      `${hub.url}/${made.contract_id}`,
      "copy",
      "--witness",
      stranger.verifierKey,
      "--json",
    ]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const err = r.json<{ code: string; details: { reason: string; hub_size: number } }>();
    assert.deepEqual([err.code, err.details.reason, err.details.hub_size], ["CORRUPTED", "log_witness", 7]);
    const human = await alice.run([
      "clone",
      `${hub.url}/${made.contract_id}`,
      "copy2",
      "--witness",
      stranger.verifierKey,
    ]);
    assert.equal(human.code, 1);
    assert.match(human.stderr, /witness check.*0 valid cosignature\(s\) of the 1 required/);
    // One of two pinned witnesses suffices with quorum 1.
    const one = await alice.ok<{ commits: number }>([
      "clone",
      `${hub.url}/${made.contract_id}`,
      "copy3",
      "--witness",
      stranger.verifierKey,
      "--witness",
      w1.verifierKey,
      "--witness-quorum",
      "1",
    ]);
    assert.equal(one.commits, 2);
    // Witnesses count by key: w1's key pinned again under another name is still one witness,
    // so the default quorum (all pinned) asks for one cosignature, not two.
    const alias = witnessVerifierKey({ ...parseWitnessVerifierKey(w1.verifierKey), name: "alias.example/w1" });
    const same = await alice.ok<{ commits: number }>([
      "clone",
      `${hub.url}/${made.contract_id}`,
      "copy4",
      "--witness",
      w1.verifierKey,
      "--witness",
      alias,
    ]);
    assert.equal(same.commits, 2);
    await stranger.stop();
  });

  it("a hub put back to an older copy of its data directory gets no cosignature and serves no checkpoint", async () => {
    const snapshot = join(base, "snapshot");
    await hub.stop();
    cpSync(hub.dataDir, snapshot, { recursive: true });
    hub = await startHub(hub.dataDir, witnessArgs([w1, w2], 2));
    await grow(hub.url, 3);
    await until(hub, (d) => d.witnesses.cosigned_size === 10);
    await hub.stop();
    rmSync(hub.dataDir, { recursive: true });
    cpSync(snapshot, hub.dataDir, { recursive: true });
    hub = await startHub(hub.dataDir, witnessArgs([w1, w2], 2));
    const doc = await until(hub, (d) => d.witnesses.witnesses.every((w) => /rolled back/.test(w.error ?? "")));
    assert.deepEqual(
      doc.witnesses.witnesses.map((w) => w.cosigned_size),
      [10, 10],
    );
    assert.deepEqual([doc.witnesses.cosigned_size, doc.witnesses.tree_size], [null, 7]);
    const res = await fetch(`${hub.url}/checkpoint`);
    assert.equal(res.status, 503);
    const body = (await res.json()) as { code: string; details: { reason: string } };
    assert.deepEqual([body.code, body.details.reason], ["UNAVAILABLE", "witness_quorum"]);
    for (const w of [w1, w2]) assert.match(w.stderr(), /REFUSED rollback by log .*\(cosigned 10, offered 7\)/);
    const pull = await alice.run(["pull", "--json"], join(alice.root, "notes"));
    assert.equal(pull.code, 1, pull.stdout);
  });
});

describe("a PostgreSQL hub with a witness", () => {
  it("serves only cosigned checkpoints", async () => {
    const db = await testDatabase();
    const dir = join(base, "pg");
    mkdirSync(dir);
    const pgLog = logKeyFile(join(dir, "log-key.json"));
    const w = await startWitness(join(dir, "w"), [pgLog.info().verifier_key]);
    const pgHub = await startHub({ databaseUrl: db.url }, [
      "--log-key",
      join(dir, "log-key.json"),
      ...witnessArgs([w], 1),
    ]);
    await grow(pgHub.url, 4);
    await until(pgHub, (d) => d.witnesses.cosigned_size === 4);
    const cp = await served(pgHub, pgLog, [w]);
    assert.deepEqual([cp.size, cp.cosigned.length], [4, 1]);
    await pgHub.stop();
    await w.stop();
  });
});
