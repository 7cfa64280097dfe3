/**
 * The explorer's browser-side cosignature check (web/src/verifyCosignaturesInBrowser.ts), run
 * here on Node's WebCrypto, against cosignatures made by the hub's own server-side code
 * (src/tlog/cosignature.ts): a valid one verifies with its timestamp; one over another
 * checkpoint body, one by another key under the witness's name, one with a flipped signature
 * bit, a truncated one and a wrong verifier key are refused with the reason; a witness with no
 * line is absent. And, without a browser, the checkpoint a real hub process serves with a real
 * witness process's cosignature, checked against the witnesses `GET /checkpoint/key` names.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { generateKeyPair, privateKeyFromSeed } from "../src/contract/keys.js";
import { cosign, type WitnessKey, witnessVerifierKey } from "../src/tlog/cosignature.js";
import { LogKey } from "../src/tlog/LogKey.js";
import { verifyNote } from "../web/src/logProof.js";
import { verifyCosignaturesInBrowser } from "../web/src/verifyCosignaturesInBrowser.js";
import { checkCosignatureLine } from "./support/cosignatureReference.js";
import { killAllHubs } from "./support/hubProcess.js";
import { startWitnessedHub, type WitnessedHub, witnessesOf } from "./support/witnessedHub.js";
import { killAllWitnesses } from "./support/witnessProcess.js";

const TIME = 1_750_000_000;
const log = new LogKey(randomBytes(32));
const note = log.sign({ size: 5, root: randomBytes(32) });
const body = note.slice(0, note.indexOf("\n\n") + 1);
const otherBody = log
  .sign({ size: 6, root: randomBytes(32) })
  .split("\n\n")[0]!
  .concat("\n");

function witness(name: string) {
  const pair = generateKeyPair();
  const key: WitnessKey = { name, publicKey: pair.publicKey };
  return { key, private: privateKeyFromSeed(pair.seed), named: { name, verifier_key: witnessVerifierKey(key) } };
}
const one = witness("witness.test/one");
const two = witness("witness.test/two");

/** The note with extra signature lines appended (each line ends in a newline). */
const withLines = (...lines: string[]) => note + lines.join("");

/** A cosignature line with one bit of its signature flipped. */
function flipSignatureBit(line: string): string {
  const [dash, name, blobText] = line.trimEnd().split(" ") as [string, string, string];
  const blob = Buffer.from(blobText, "base64");
  blob[blob.length - 1]! ^= 1;
  return `${dash} ${name} ${blob.toString("base64")}\n`;
}

describe("verifyCosignaturesInBrowser", () => {
  it("verifies a cosignature made by the server-side code and reports its timestamp", async () => {
    const line = cosign(body, one.key, one.private, TIME);
    assert.deepEqual(await verifyCosignaturesInBrowser(withLines(line), [one.named]), [
      { name: one.key.name, status: "verified", timestamp: TIME },
    ]);
  });

  it("checks each witness the hub names on its own, in the order named", async () => {
    const line = cosign(body, two.key, two.private, TIME + 1);
    assert.deepEqual(await verifyCosignaturesInBrowser(withLines(line), [one.named, two.named]), [
      { name: one.key.name, status: "absent" },
      { name: two.key.name, status: "verified", timestamp: TIME + 1 },
    ]);
  });

  it("refuses a cosignature over another checkpoint body", async () => {
    const line = cosign(otherBody, one.key, one.private, TIME);
    assert.deepEqual(await verifyCosignaturesInBrowser(withLines(line), [one.named]), [
      { name: one.key.name, status: "failed", reason: "signature", timestamp: TIME },
    ]);
  });

  it("refuses a cosignature by another key under the witness's name", async () => {
    const impostor = witness(one.key.name);
    const line = cosign(body, impostor.key, impostor.private, TIME);
    assert.deepEqual(await verifyCosignaturesInBrowser(withLines(line), [one.named]), [
      { name: one.key.name, status: "failed", reason: "key_id", timestamp: TIME },
    ]);
    // The same key id but the other key's signature: the signature check catches it.
    const forged = line.replace(
      /^(\u2014 \S+ )(\S+)/,
      (_, head: string, blobText: string) =>
        head +
        Buffer.concat([
          Buffer.from(one.named.verifier_key.split("+")[1]!, "hex"),
          Buffer.from(blobText, "base64").subarray(4),
        ]).toString("base64"),
    );
    assert.deepEqual(await verifyCosignaturesInBrowser(withLines(forged), [one.named]), [
      { name: one.key.name, status: "failed", reason: "signature", timestamp: TIME },
    ]);
  });

  it("refuses a bad signature, and a line that is not key id ‖ timestamp ‖ signature", async () => {
    const line = cosign(body, one.key, one.private, TIME);
    assert.deepEqual(await verifyCosignaturesInBrowser(withLines(flipSignatureBit(line)), [one.named]), [
      { name: one.key.name, status: "failed", reason: "signature", timestamp: TIME },
    ]);
    const truncated = `\u2014 ${one.key.name} ${Buffer.from(line.trimEnd().split(" ")[2]!, "base64").subarray(0, 68).toString("base64")}\n`;
    assert.deepEqual(await verifyCosignaturesInBrowser(withLines(truncated), [one.named]), [
      { name: one.key.name, status: "failed", reason: "malformed", timestamp: null },
    ]);
  });

  it("counts a valid line after a bad one under the same name", async () => {
    const line = cosign(body, one.key, one.private, TIME);
    assert.deepEqual(await verifyCosignaturesInBrowser(withLines(flipSignatureBit(line), line), [one.named]), [
      { name: one.key.name, status: "verified", timestamp: TIME },
    ]);
  });

  it("refuses to check with a verifier key that is not the witness's", async () => {
    const line = cosign(body, one.key, one.private, TIME);
    const renamed = { name: one.key.name, verifier_key: two.named.verifier_key };
    const garbled = {
      name: one.key.name,
      verifier_key: one.named.verifier_key.replace(/\+[0-9a-f]{8}\+/, "+00000000+"),
    };
    for (const named of [renamed, garbled]) {
      assert.deepEqual(await verifyCosignaturesInBrowser(withLines(line), [named]), [
        { name: one.key.name, status: "failed", reason: "verifier_key", timestamp: null },
      ]);
    }
  });

  it("finds nothing on the log's note alone or on text that is not a signed note", async () => {
    assert.deepEqual(await verifyCosignaturesInBrowser(note, [one.named]), [{ name: one.key.name, status: "absent" }]);
    const line = cosign(body, one.key, one.private, TIME);
    assert.deepEqual(await verifyCosignaturesInBrowser(withLines(line).replace("\n\n", "\n"), [one.named]), [
      { name: one.key.name, status: "absent" },
    ]);
  });
});

describe("verifyCosignaturesInBrowser on a real hub's cosigned checkpoint", () => {
  let dir: string;
  let witnessed: WitnessedHub;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "explorer-cosig-"));
    witnessed = await startWitnessedHub(dir);
  });
  after(async () => {
    await killAllHubs();
    await killAllWitnesses();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("verifies the running witness's cosignature and finds none of the stopped one", async () => {
    const { hub, witness, treeSize } = witnessed;
    const key = (await (await fetch(`${hub.url}/checkpoint/key`)).json()) as { origin: string; public_key: string };
    const note = await (await fetch(`${hub.url}/checkpoint`)).text();
    const cp = await verifyNote(note, key.origin, key.public_key.replace(/^ed25519:/, ""));
    assert.equal(cp?.size, treeSize);
    const line = note.split("\n").find((l) => l.startsWith("\u2014 witness.test/one "));
    assert.ok(line, note);
    const timestamp = checkCosignatureLine(line, witness.verifierKey, note.slice(0, note.indexOf("\n\n") + 1));
    assert.deepEqual(await verifyCosignaturesInBrowser(note, (await witnessesOf(hub.url)).witnesses), [
      { name: "witness.test/one", status: "verified", timestamp },
      { name: "witness.test/gone", status: "absent" },
    ]);
  });
});
