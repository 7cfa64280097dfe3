/**
 * `contract-hub witness` against real hub processes on loopback: the C2SP tlog-witness
 * add-checkpoint statuses (200, 400, 403, 404, 409 with the cosigned size, 422), the
 * cosignature's wire form checked against the C2SP tlog-cosignature rules re-derived here
 * (key id, timestamped signature, signed message), the monitoring route, the cosigned size
 * kept across restarts, and a hub put back to an older copy of its data directory (rollback)
 * and then grown another way (fork) refused by name with exit 1.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { cpSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { HubClient } from "../src/client/HubClient.js";
import { LogKey } from "../src/tlog/LogKey.js";
import { cli, tempDir } from "./cli-support.js";
import { checkCosignatureLine } from "./support/cosignatureReference.js";
import { type HubProcess, killAllHubs, startHub } from "./support/hubProcess.js";
import { grow, killAllWitnesses, startWitness, type WitnessProcess } from "./support/witnessProcess.js";

const post = async (url: string, body: string) => {
  const res = await fetch(`${url}/add-checkpoint`, { method: "POST", body });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
};
const checkpointOf = async (hubUrl: string) => (await fetch(`${hubUrl}/checkpoint`)).text();
const proofLines = async (hubUrl: string, from: number, to: number) => {
  const { proof } = (await (await fetch(`${hubUrl}/proofs/consistency?from=${from}&to=${to}`)).json()) as {
    proof: string[];
  };
  return proof.map((h) => `${Buffer.from(h, "hex").toString("base64")}\n`).join("");
};
const sizeOf = (note: string) => Number(note.split("\n")[1]);
const bodyOf = (note: string) => note.slice(0, note.indexOf("\n\n") + 1);

let base: string;
let hub: HubProcess;
let logKey: string;
let origin: string;
let witness: WitnessProcess;

before(async () => {
  base = tempDir("witness");
  hub = await startHub(join(base, "hub"));
  ({ verifier_key: logKey, origin } = await new HubClient({ url: hub.url }).checkpointKey());
  witness = await startWitness(join(base, "w"), [logKey]);
});
after(async () => {
  await killAllWitnesses();
  await killAllHubs();
});

describe("contract-hub witness: the tlog-witness API", () => {
  it("cosigns a first checkpoint (old 0) with a C2SP ed25519 cosignature", async () => {
    await grow(hub.url, 3);
    const note = await checkpointOf(hub.url);
    const r = await post(witness.url, `old 0\n\n${note}`);
    assert.equal(r.status, 200, r.text);
    const lines = r.text.split("\n");
    assert.equal(lines.at(-1), "", "every line ends in a newline");
    assert.equal(lines.length, 2);
    checkCosignatureLine(lines[0]!, witness.verifierKey, bodyOf(note));
  });

  it("answers 409 with the cosigned size when the old size is not it", async () => {
    const note = await checkpointOf(hub.url);
    const r = await post(witness.url, `old 0\n\n${note}`);
    assert.deepEqual([r.status, r.type, r.text], [409, "text/x.tlog.size", `${sizeOf(note)}\n`]);
  });

  it("cosigns a grown log with a consistency proof from the cosigned size, and refuses a wrong proof (422)", async () => {
    const old = sizeOf(await checkpointOf(hub.url));
    await grow(hub.url, 4);
    const note = await checkpointOf(hub.url);
    const size = sizeOf(note);
    const proof = await proofLines(hub.url, old, size);
    const wrong = proof.replace(/^[^\n]+/, randomBytes(32).toString("base64"));
    assert.equal((await post(witness.url, `old ${old}\n${wrong}\n${note}`)).status, 422);
    const r = await post(witness.url, `old ${old}\n${proof}\n${note}`);
    assert.equal(r.status, 200, r.text);
    checkCosignatureLine(r.text.trimEnd(), witness.verifierKey, bodyOf(note));
  });

  it("refuses an unknown log (404), a checkpoint not signed by the log key (403), a malformed body (400), a huge one (413)", async () => {
    const stranger = new LogKey(randomBytes(32), "example.org/another-log");
    const root = Buffer.from(bodyOf(await checkpointOf(hub.url)).split("\n")[2]!, "base64");
    assert.equal((await post(witness.url, `old 0\n\n${stranger.sign({ size: 1, root })}`)).status, 404);
    const impostor = new LogKey(randomBytes(32), origin);
    const size = sizeOf(await checkpointOf(hub.url));
    assert.equal((await post(witness.url, `old ${size}\n\n${impostor.sign({ size, root })}`)).status, 403);
    assert.equal((await post(witness.url, "old 1\nnot a proof\n")).status, 400);
    assert.equal((await post(witness.url, `old 01\n\n${await checkpointOf(hub.url)}`)).status, 400);
    assert.equal((await post(witness.url, `old 0\n\n${"x".repeat(100_000)}`)).status, 413);
  });

  it("serves the newest cosigned checkpoint at /<SHA-256 of the origin>/checkpoint", async () => {
    const hash = createHash("sha256").update(origin).digest("hex");
    const res = await fetch(`${witness.url}/${hash}/checkpoint`);
    assert.equal(res.status, 200);
    const note = await res.text();
    assert.equal(bodyOf(note), bodyOf(await checkpointOf(hub.url)));
    const cosig = note.split("\n").find((l) => l.startsWith(`\u2014 ${witness.verifierKey.split("+")[0]} `));
    checkCosignatureLine(cosig!, witness.verifierKey, bodyOf(note));
    assert.equal((await fetch(`${witness.url}/${"0".repeat(64)}/checkpoint`)).status, 404);
  });
});

describe("contract-hub witness: rollback and fork", () => {
  const once = (args: string[] = []) =>
    cli(["witness", "--data-dir", witness.dataDir, "--log", logKey, "--follow", hub.url, "--once", ...args], {
      cwd: base,
      home: join(base, "home"),
    });

  it("keeps the cosigned size across a restart and follows a hub with --once", async () => {
    await witness.stop();
    const snapshot = join(base, "snapshot");
    await hub.stop();
    cpSync(hub.dataDir, snapshot, { recursive: true });
    hub = await startHub(hub.dataDir);
    await grow(hub.url, 2);
    const r = await once(["--json"]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const doc = r.json<{ hubs: { outcome: string; size: number }[] }>();
    assert.deepEqual(
      doc.hubs.map((h) => [h.outcome, h.size]),
      [["cosigned", sizeOf(await checkpointOf(hub.url))]],
    );
  });

  it("refuses a hub put back to an older copy of its data directory: rollback, exit 1", async () => {
    const cosigned = sizeOf(await checkpointOf(hub.url));
    await hub.stop();
    rmSync(hub.dataDir, { recursive: true });
    cpSync(join(base, "snapshot"), hub.dataDir, { recursive: true });
    hub = await startHub(hub.dataDir);
    const older = sizeOf(await checkpointOf(hub.url));
    assert.ok(older < cosigned);
    const r = await once(["--json"]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(r.json<{ hubs: { outcome: string }[] }>().hubs[0]!.outcome, "refused");
    assert.match(
      r.stderr,
      new RegExp(`REFUSED rollback by log ${origin}: .*\\(cosigned ${cosigned}, offered ${older}\\)`),
    );
    // Over HTTP too: the witness answers with the size it cosigned.
    witness = await startWitness(witness.dataDir, [logKey]);
    const answer = await post(witness.url, `old 0\n\n${await checkpointOf(hub.url)}`);
    assert.deepEqual([answer.status, answer.text], [409, `${cosigned}\n`]);
    await witness.stop();
  });

  it("refuses the rolled-back hub once it grew another history past the cosigned size: fork, exit 1", async () => {
    await grow(hub.url, 6);
    const r = await once();
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /REFUSED fork by log .*does not extend/);
    const refusals = readFileSync(join(witness.dataDir, "refusals.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { check: string; origin: string; note: string });
    // The wrong proof of the first part, the rollback (polled, then over HTTP), this fork.
    assert.deepEqual(
      refusals.map((x) => x.check),
      ["fork", "rollback", "rollback", "fork"],
    );
    assert.ok(refusals.every((x) => x.origin === origin && x.note.startsWith(`${origin}\n`)));
  });
});
