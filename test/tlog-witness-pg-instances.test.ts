/**
 * Two PostgreSQL hub processes on one database (one log, one tree, one log key) that both
 * submit their checkpoints to the same real witness process, on loopback. Commits are
 * appended through both, one after the other and at the same time, while a watcher reads
 * both hubs' served checkpoints. Every checkpoint either hub served must carry the
 * witness's valid cosignature, no size may ever appear with two roots, all of them must lie
 * on one history (consistency proofs checked with the project's verifier), and both hubs
 * must end serving a checkpoint of the whole tree. And an instance whose round read the tree
 * before the other had the witness cosign a larger one is told so, not that its log was rolled
 * back, and catches up at its next round (from the checkpoint the other stored). A client that
 * checks the log through each instance in turn, while only one of them runs witness rounds,
 * never sees the tree shrink: every instance serves the newest cosigned checkpoint stored in
 * the database, and proves it.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { checkHubLog } from "../src/client/checkHubLog.js";
import { HubClient } from "../src/client/HubClient.js";
import { encodeHex } from "../src/contract/hex.js";
import { publicKeyFromSeed } from "../src/contract/keys.js";
import { type CheckpointWitness, CosignedCheckpoints } from "../src/hub/CosignedCheckpoints.js";
import { splitNote, verifyCheckpoint } from "../src/tlog/checkpoint.js";
import { parseWitnessVerifierKey } from "../src/tlog/cosignature.js";
import { LogKey } from "../src/tlog/LogKey.js";
import { verifyConsistency } from "../src/tlog/merkle.js";
import { postAddCheckpoint } from "../src/witness/postAddCheckpoint.js";
import { tempDir } from "./cli-support.js";
import { checkCosignatureLine } from "./support/cosignatureReference.js";
import { type HubProcess, killAllHubs, startHub } from "./support/hubProcess.js";
import { testDatabase } from "./support/pg.js";
import { type Instance, openInstance, Writer } from "./support/pgHubs.js";
import { grow, killAllWitnesses, startWitness, type WitnessProcess } from "./support/witnessProcess.js";

interface KeyDoc {
  witnesses: {
    cosigned_size: number | null;
    tree_size: number | null;
    witnesses: { cosigned_size: number | null; error: string | null }[];
  };
}

/** One checkpoint as a hub served it: which hub, its size and root, and the whole note. */
interface Seen {
  hub: string;
  size: number;
  root: string;
  note: string;
}

// At the top level: its `after` hook must drop the database after this file's tests, not after `before`.
const db = await testDatabase();
let log: LogKey;
let witness: WitnessProcess;
let hubs: HubProcess[];
const seen: Seen[] = [];

before(async () => {
  const dir = tempDir("pg-witness");
  mkdirSync(dir, { recursive: true });
  const keyFile = join(dir, "log-key.json");
  const seed = randomBytes(32);
  writeFileSync(
    keyFile,
    JSON.stringify({ name: "log", seed: encodeHex(seed), public_key: encodeHex(publicKeyFromSeed(seed)) }),
  );
  log = new LogKey(seed);
  witness = await startWitness(join(dir, "w"), [log.info().verifier_key], ["--name", "witness.test/shared"]);
  const args = ["--log-key", keyFile, "--witness", `${witness.verifierKey}@${witness.url}`, "--witness-interval", "50"];
  // One after the other: the first creates the schema, the second opens it.
  hubs = [await startHub({ databaseUrl: db.url }, args)];
  hubs.push(await startHub({ databaseUrl: db.url }, args));
});
after(async () => {
  await killAllHubs();
  await killAllWitnesses();
});

const keyDoc = async (hub: HubProcess) => (await (await fetch(`${hub.url}/checkpoint/key`)).json()) as KeyDoc;

/** Reads a hub's served checkpoint; a 200 is checked (log signature, the witness's cosignature) and kept. */
async function look(hub: HubProcess): Promise<number> {
  const res = await fetch(`${hub.url}/checkpoint`);
  if (res.status === 503) {
    const body = (await res.json()) as { code: string; details: { reason: string } };
    assert.deepEqual([body.code, body.details.reason], ["UNAVAILABLE", "witness_quorum"]);
    return res.status;
  }
  assert.equal(res.status, 200);
  const note = await res.text();
  const cp = verifyCheckpoint(note, log.origin, log.publicKey);
  const name = witness.verifierKey.split("+")[0]!;
  const line = note.split("\n").find((l) => l.startsWith(`\u2014 ${name} `));
  assert.ok(line !== undefined, `hub ${hub.url} served a checkpoint without the witness's cosignature:\n${note}`);
  checkCosignatureLine(line, witness.verifierKey, splitNote(note).body);
  seen.push({ hub: hub.url, size: cp.size, root: cp.root.toString("base64"), note });
  return res.status;
}

/** Polls until both hubs serve a cosigned checkpoint of `size` leaves (bounded: 60 s, a deadline, not a measurement). */
async function untilBothServe(size: number): Promise<KeyDoc[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const docs = await Promise.all(hubs.map(keyDoc));
    if (docs.every((d) => d.witnesses.cosigned_size === size)) return docs;
    assert.ok(Date.now() < deadline, `not caught up to ${size}: ${JSON.stringify(docs)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("two PostgreSQL hub instances sharing one witness", { timeout: 120_000 }, () => {
  it("both serve cosigned checkpoints of one history and both catch up with the whole tree", async () => {
    const [a, b] = hubs as [HubProcess, HubProcess];
    // The watcher reads both hubs' checkpoints the whole time the log grows.
    let growing = true;
    const watcher = (async () => {
      while (growing) {
        await Promise.all(hubs.map(look));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    let total = 0;
    let docs: KeyDoc[];
    try {
      // Interleaved: each append through the other instance than the one before.
      for (const [hub, n] of [
        [a, 2],
        [b, 3],
        [a, 1],
        [b, 2],
      ] as const) {
        await grow(hub.url, n);
        total += n;
      }
      await untilBothServe(total);
      // Concurrent: both instances append at once, in several rounds.
      for (let round = 0; round < 4; round++) {
        const sizes = [1 + round, 3, 2, 1 + ((round * 2) % 3)];
        await Promise.all(sizes.map((n, i) => grow(hubs[i % 2]!.url, n)));
        total += sizes.reduce((x, y) => x + y, 0);
      }
      docs = await untilBothServe(total);
    } finally {
      growing = false;
      await watcher;
    }
    for (const hub of hubs) assert.equal(await look(hub), 200);

    // Neither instance is stuck: each serves the whole tree, and its witness state is clean.
    for (const doc of docs) {
      assert.deepEqual(
        [doc.witnesses.cosigned_size, doc.witnesses.tree_size, doc.witnesses.witnesses[0]!.cosigned_size],
        [total, total, total],
      );
      assert.equal(doc.witnesses.witnesses[0]!.error, null);
    }
    const finals = hubs.map((h) => seen.findLast((s) => s.hub === h.url)!);
    assert.deepEqual(
      finals.map((s) => s.size),
      [total, total],
    );
    assert.equal(finals[0]!.root, finals[1]!.root);
    // Both instances' checkpoints were seen while the log grew, not only the last one.
    for (const hub of hubs) assert.ok(new Set(seen.filter((s) => s.hub === hub.url).map((s) => s.size)).size >= 2);

    // One root per size across both instances (the witness never cosigned two for one size).
    const rootOf = new Map<number, string>();
    for (const s of seen) {
      const known = rootOf.get(s.size);
      assert.ok(known === undefined || known === s.root, `two roots for size ${s.size}`);
      rootOf.set(s.size, s.root);
    }
    // One history: each served size is consistent with the next larger one, whichever hub served
    // either; the proof comes from alternating hubs and is checked with the project's verifier.
    const sizes = [...rootOf.keys()].filter((n) => n > 0).sort((x, y) => x - y);
    for (let i = 0; i + 1 < sizes.length; i++) {
      const [from, to] = [sizes[i]!, sizes[i + 1]!];
      const res = await fetch(`${hubs[i % 2]!.url}/proofs/consistency?from=${from}&to=${to}`);
      assert.equal(res.status, 200);
      const body = (await res.json()) as { from: number; to: number; proof: string[] };
      assert.deepEqual([body.from, body.to], [from, to]);
      const ok = verifyConsistency(
        from,
        to,
        Buffer.from(rootOf.get(from)!, "base64"),
        Buffer.from(rootOf.get(to)!, "base64"),
        body.proof.map((p) => Buffer.from(p, "hex")),
      );
      assert.ok(ok, `checkpoints of ${from} and ${to} are not consistent`);
    }

    // The witness saw no fork; the newest checkpoint it keeps is the one both hubs serve.
    assert.doesNotMatch(witness.stderr(), /REFUSED fork/);
    const refusals = join(witness.dataDir, "refusals.jsonl");
    const records = existsSync(refusals)
      ? readFileSync(refusals, "utf8")
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => JSON.parse(l) as { check: string })
      : [];
    assert.deepEqual(
      records.filter((r) => r.check === "fork"),
      [],
    );
    const health = (await (await fetch(`${witness.url}/health`)).json()) as {
      logs: { origin: string; cosigned_size: number }[];
    };
    assert.deepEqual(health.logs, [{ origin: log.origin, cosigned_size: total }]);
  });
});

describe("an instance whose round read the tree before the other instance had the witness cosign a larger one", () => {
  it("is not told its log was rolled back, and catches up at its next round", async (t) => {
    const schema = db.freshSchema();
    // Each is closed after the test whichever step failed, the opening of the next included:
    // the first instance, left open when the second failed to open, held the file.
    const a = await openInstance(db.url, schema);
    t.after(() => a.close());
    const b = await openInstance(db.url, schema);
    t.after(() => b.close());
    const key = new LogKey(randomBytes(32));
    const w = await startWitness(tempDir("pg-witness-stale"), [key.info().verifier_key]);
    t.after(() => w.stop());
    const witnessKey = parseWitnessVerifierKey(w.verifierKey);
    // Instance A's submissions wait at a gate, so its round has read and signed the tree before B's round runs.
    let gate: Promise<void> = Promise.resolve();
    const submitA = async (body: string) => {
      await gate;
      return postAddCheckpoint(w.url, body);
    };
    const checkpoints = (inst: Instance, submit: CheckpointWitness["submit"]) =>
      new CosignedCheckpoints(
        { witnesses: [{ key: witnessKey, url: w.url, submit }], quorum: 1 },
        { store: inst.store, logKey: async () => key },
        (err) => assert.fail(err as Error),
      );
    const [ca, cb] = [checkpoints(a, submitA), checkpoints(b, (body) => postAddCheckpoint(w.url, body))];
    const writer = new Writer();
    const append = async (inst: Instance, n: number) => {
      const id = `c${randomBytes(6).toString("hex")}`;
      const g = writer.genesis(id);
      await inst.hub.push(writer.caller, id, { commits: [g, ...writer.chain(id, g.hash, n - 1)] });
    };
    await append(a, 3);
    await ca.round();
    assert.equal(ca.status().cosigned_size, 3);

    await append(a, 2);
    let release!: () => void;
    gate = new Promise((r) => {
      release = r;
    });
    const staleRound = ca.round(); // reads 5, signs it, waits at the gate
    // Bounded (60 s, a deadline, not a measurement), as every wait here.
    for (const deadline = Date.now() + 60_000; ca.status().tree_size !== 5; ) {
      assert.ok(Date.now() < deadline, `the round never read the tree: ${JSON.stringify(ca.status())}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    await append(b, 3);
    await cb.round();
    assert.equal(cb.status().cosigned_size, 8);
    release();
    await staleRound;
    const stale = ca.status();
    assert.deepEqual([stale.cosigned_size, stale.tree_size, stale.witnesses[0]!.cosigned_size], [3, 5, 8]);
    assert.match(stale.witnesses[0]!.error ?? "", /larger than this round's 5: another instance .*\(now 8\)/);
    // The witness cannot tell a late instance from a rolled-back log: it answers 409 and records a rollback.
    assert.match(w.stderr(), /REFUSED rollback by log .*\(cosigned 8, offered 5\)/);

    await ca.round();
    const caught = ca.status();
    assert.deepEqual(
      [caught.cosigned_size, caught.tree_size, caught.witnesses[0]!.cosigned_size, caught.witnesses[0]!.error],
      [8, 8, 8, null],
    );
    assert.equal((await ca.served()).root, (await cb.served()).root);
  });
});

// Before the newest cosigned checkpoint was shared through the database, an instance served
// its own, which lagged the other's until its next round, and a client sent to both saw the
// tree shrink (CORRUPTED log_rollback). Here one instance's interval does not come round
// during the test, so after its first round (at start) everything it serves is the other's.
describe("a client that checks the log through both instances", () => {
  it("never sees the tree shrink, though only one instance runs witness rounds", async () => {
    const other = await testDatabase();
    const dir = tempDir("pg-witness-lag");
    const keyFile = join(dir, "log-key.json");
    const seed = randomBytes(32);
    writeFileSync(
      keyFile,
      JSON.stringify({ name: "log", seed: encodeHex(seed), public_key: encodeHex(publicKeyFromSeed(seed)) }),
    );
    const key = new LogKey(seed);
    const w = await startWitness(join(dir, "w"), [key.info().verifier_key]);
    const args = (interval: number) => [
      "--log-key",
      keyFile,
      "--witness",
      `${w.verifierKey}@${w.url}`,
      "--witness-interval",
      String(interval),
    ];
    const fast = await startHub({ databaseUrl: other.url }, args(50));
    const slow = await startHub({ databaseUrl: other.url }, args(3_600_000));
    try {
      const pinned = {
        origin: key.origin,
        public_key: `ed25519:${encodeHex(key.publicKey)}`,
        witnesses: [w.verifierKey],
      };
      const clients = [fast, slow].map((h) => new HubClient({ url: h.url }));
      let kept: Awaited<ReturnType<typeof checkHubLog>> | null = null;
      let turn = 0;
      const sizes: number[] = [];
      const roots = new Map<number, string>();
      /** Checks the log through each instance in turn until `head` is proven in a checkpoint of `size` (a 60 s deadline). */
      const checkUntil = async (size: number, head: string) => {
        const deadline = Date.now() + 60_000;
        for (;;) {
          const client = clients[turn++ % 2]!;
          try {
            kept = await checkHubLog(client, pinned, kept, head);
            sizes.push(kept.size);
            roots.set(kept.size, kept.root);
          } catch (err) {
            // 503 until an instance has a first cosigned checkpoint; any CORRUPTED fails the test.
            if ((err as { code?: string }).code !== "UNAVAILABLE") throw err;
          }
          if (kept !== null && kept.size === size && kept.head_pending === undefined) return;
          assert.ok(Date.now() < deadline, `no checkpoint of ${size} proving ${head}: kept ${JSON.stringify(kept)}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      let total = 0;
      // Appends through both instances; each time the client checks through both, alternately.
      for (const [hub, n] of [
        [fast, 3],
        [slow, 2],
        [fast, 1],
        [slow, 3],
      ] as const) {
        const head = await grow(hub.url, n);
        total += n;
        await checkUntil(total, head);
      }
      assert.deepEqual(
        sizes,
        [...sizes].sort((x, y) => x - y),
      );
      // The slow instance, which ran no round past its first, serves the whole tree and says so.
      const slowDoc = await keyDoc(slow);
      assert.deepEqual([slowDoc.witnesses.cosigned_size, slowDoc.witnesses.tree_size], [total, total]);
      const served = verifyCheckpoint(await (await fetch(`${slow.url}/checkpoint`)).text(), key.origin, key.publicKey);
      assert.equal(served.size, total);
      // Its proofs reach the shared checkpoint's size: every size up to the tree in the database.
      const proof = await fetch(`${slow.url}/proofs/consistency?from=3&to=${total}`);
      assert.equal(proof.status, 200);
      const body = (await proof.json()) as { proof: string[] };
      const hex = (h: string) => Buffer.from(h, "hex");
      assert.ok(verifyConsistency(3, total, hex(roots.get(3)!), served.root, body.proof.map(hex)));
    } finally {
      await fast.stop();
      await slow.stop();
      await w.stop();
    }
  });
});
