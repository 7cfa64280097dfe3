/**
 * What a witness records as a log's misbehaviour: only what the log itself signed. Anyone
 * may post to add-checkpoint, so a repost of the log's public checkpoint with made-up proof
 * lines is a bad request (422, as tlog-witness answers a proof that does not verify), never
 * a fork: nothing on stderr, nothing in refusals.jsonl, and the witness keeps cosigning the
 * log. (Two roots the log signed for one size stay a fork: test/tlog-witness.test.ts.)
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { HubClient } from "../src/client/HubClient.js";
import { verifyCheckpoint } from "../src/tlog/checkpoint.js";
import { originHash } from "../src/witness/WitnessRecords.js";
import { tempDir } from "./cli-support.js";
import { type HubProcess, killAllHubs, startHub } from "./support/hubProcess.js";
import { grow, killAllWitnesses, startWitness, type WitnessProcess } from "./support/witnessProcess.js";

const post = async (url: string, body: string | Buffer) => {
  const res = await fetch(`${url}/add-checkpoint`, { method: "POST", body });
  return { status: res.status, text: await res.text() };
};
const refusals = (w: WitnessProcess): { check: string }[] => {
  const file = join(w.dataDir, "refusals.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
};

let hub: HubProcess;
let witness: WitnessProcess;

before(async () => {
  const base = tempDir("witness-evidence");
  hub = await startHub(join(base, "hub"));
  const { verifier_key } = await new HubClient({ url: hub.url }).checkpointKey();
  witness = await startWitness(join(base, "w"), [verifier_key]);
});
after(async () => {
  await killAllWitnesses();
  await killAllHubs();
});

describe("a witness records only the log's own misbehaviour", () => {
  it("refuses the cosigned checkpoint reposted with proof lines (422) without recording a fork", async () => {
    await grow(hub.url, 3);
    const note = await (await fetch(`${hub.url}/checkpoint`)).text();
    const [, size, root] = note.split("\n") as [string, string, string];
    assert.equal((await post(witness.url, `old 0\n\n${note}`)).status, 200);

    const bogus = await post(witness.url, `old ${size}\n${root}\n\n${note}`);
    assert.equal(bogus.status, 422, bogus.text);
    const twoLines = await post(witness.url, `old ${size}\n${root}\n${root}\n\n${note}`);
    assert.equal(twoLines.status, 422, twoLines.text);
    assert.deepEqual(refusals(witness), []);
    assert.doesNotMatch(witness.stderr(), /REFUSED/);

    // The same checkpoint with the empty proof is cosigned again, fresh timestamp.
    assert.equal((await post(witness.url, `old ${size}\n\n${note}`)).status, 200);
    const health = (await (await fetch(`${witness.url}/health`)).json()) as { logs: { cosigned_size: number }[] };
    assert.equal(health.logs[0]!.cosigned_size, Number(size));
  });

  it("cosigns no note whose line under the log's name and key id is not a valid signature, and keeps publishing a verifiable one", async () => {
    const key = await new HubClient({ url: hub.url }).checkpointKey();
    const publicKey = Buffer.from(key.public_key.replace(/^ed25519:/, ""), "hex");
    const note = await (await fetch(`${hub.url}/checkpoint`)).text();
    const size = note.split("\n")[1]!;
    const [body, block] = note.split("\n\n") as [string, string];
    const logLine = block.slice(0, -1);
    const blob = Buffer.from(logLine.split(" ")[2]!, "base64");
    // Anyone can repost the public checkpoint: here with a truncated signature under the log's
    // name and key id placed first, then with a carriage return and junk around the real one.
    const short = `\u2014 ${key.origin} ${Buffer.concat([blob.subarray(0, 4), Buffer.alloc(8)]).toString("base64")}`;
    const answers = [
      await post(witness.url, `old ${size}\n\n${body}\n\n${short}\n${logLine}\n`),
      await post(witness.url, `old ${size}\n\n${body}\n\n${logLine}\r\n`),
      await post(witness.url, `old ${size}\n\n${body}\n\n${logLine.replace(/ (\S+)$/, " !$1")}\n`),
    ];
    // Bytes that are not UTF-8, in a line of another key.
    const notUtf8 = Buffer.concat([
      Buffer.from(`old ${size}\n\n${note}\u2014 w`),
      Buffer.from([0xff]),
      Buffer.from(" AAAAAAAA\n"),
    ]);
    answers.push(await post(witness.url, notUtf8));
    assert.deepEqual(
      answers.map((a) => a.status),
      [403, 400, 400, 400],
    );
    const published = await (await fetch(`${witness.url}/${originHash(key.origin)}/checkpoint`)).text();
    assert.equal(verifyCheckpoint(published, key.origin, publicKey).size, Number(size));
    assert.deepEqual(published.split("\n").slice(4, 5), [logLine]);
    assert.deepEqual(refusals(witness), []);
  });
});
