import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { generateKeyPair, sign } from "../contract/keys.js";
import {
  CheckpointError,
  checkpointBody,
  defaultOrigin,
  keyId,
  parseVerifierKey,
  signCheckpoint,
  verifierKey,
  verifyCheckpoint,
} from "./checkpoint.js";

const key = generateKeyPair();
const origin = "hub.example/log";
const root = createHash("sha256").update("root").digest();

test("a checkpoint note has the C2SP layout and verifies with its key", () => {
  const note = signCheckpoint({ origin, size: 42, root }, key.seed, key.publicKey);
  const [body, sig] = note.split("\n\n") as [string, string];
  assert.equal(`${body}\n`, `${origin}\n42\n${root.toString("base64")}\n`);
  assert.match(sig, /^\u2014 hub\.example\/log [A-Za-z0-9+/]+=*\n$/);
  const blob = Buffer.from(sig.split(" ")[2]!, "base64");
  assert.equal(blob.length, 68);
  const expectedId = createHash("sha256")
    .update(Buffer.concat([Buffer.from(`${origin}\n`), Buffer.from([1]), key.publicKey]))
    .digest()
    .subarray(0, 4);
  assert.deepEqual(blob.subarray(0, 4), expectedId);
  assert.deepEqual(verifyCheckpoint(note, origin, key.publicKey), { origin, size: 42, root });
});

test("a cosignature line is carried and ignored", () => {
  const witness = generateKeyPair();
  const note = signCheckpoint({ origin, size: 7, root }, key.seed, key.publicKey);
  const cosig = Buffer.concat([keyId("witness", witness.publicKey), Buffer.alloc(72)]).toString("base64");
  assert.equal(verifyCheckpoint(`${note}\u2014 witness ${cosig}\n`, origin, key.publicKey).size, 7);
});

test("forged, foreign and malformed notes are refused", () => {
  const note = signCheckpoint({ origin, size: 42, root }, key.seed, key.publicKey);
  const other = generateKeyPair();
  const refuse = (text: string, pattern: RegExp, pub: Uint8Array = key.publicKey, o = origin) =>
    assert.throws(
      () => verifyCheckpoint(text, o, pub),
      (e: unknown) => e instanceof CheckpointError && pattern.test(e.message),
    );
  refuse(note.replace("\n42\n", "\n43\n"), /does not verify/);
  refuse(note, /no signature by the log key/, other.publicKey);
  refuse(note, /origin/, key.publicKey, "other");
  refuse(note.replace("\n\n", "\n"), /not a signed note/);
  refuse(note.replace("\n42\n", "\n042\n"), /size/);
  refuse(note.replace(root.toString("base64"), "AAAA"), /root/);
  // A signature by another key under the log's name and id prefix still does not verify.
  const body = checkpointBody({ origin, size: 42, root });
  const forged = Buffer.concat([keyId(origin, key.publicKey), sign(other.seed, Buffer.from(body))]).toString("base64");
  refuse(`${body}\n\u2014 ${origin} ${forged}\n`, /does not verify/);
});

test("a note is refused unless it is a strict C2SP signed note", () => {
  const note = signCheckpoint({ origin, size: 42, root }, key.seed, key.publicKey);
  const [body, block] = note.split("\n\n") as [string, string];
  const line = block.slice(0, -1);
  const blob = line.split(" ")[2]!;
  const other = `\u2014 witness.example/w ${Buffer.alloc(76, 1).toString("base64")}`;
  const refused = (text: string) => {
    try {
      verifyCheckpoint(text, origin, key.publicKey);
    } catch (err) {
      assert.ok(err instanceof CheckpointError, String(err));
      return err.message;
    }
    return "accepted";
  };
  const malformed = {
    crlf: `${body}\n\n${line}\r\n`,
    tab: `${body}\n\n${line}\n${other}\t\n`,
    control: `${body}\n\n${line}\n\u2014 w\u0001x ${blob}\n`,
    "not base64": `${body}\n\n${line.replace(blob, `!${blob}`)}\n`,
    "unpadded base64": `${body}\n\n${line}\n${other.replace(/=+$/, "")}\n`,
    "url-safe base64": `${body}\n\n${line}\n\u2014 w ${Buffer.alloc(9, 0xfb).toString("base64url")}\n`,
    "empty signature": `${body}\n\n${line}\n\u2014 w \n`,
    "signature under 5 bytes": `${body}\n\n${line}\n\u2014 w AAAA\n`,
    "+ in the key name": `${body}\n\n${line}\n\u2014 w+1 ${blob}\n`,
    "no-break space in the key name": `${body}\n\n${line}\n\u2014 w\u00a0x ${blob}\n`,
    "trailing space": `${body}\n\n${line} \n`,
  };
  for (const [what, text] of Object.entries(malformed)) {
    assert.match(refused(text), /not a signed note|malformed signature line/, what);
  }
  // A line under the log key's name and id is its signature or the note is refused, wherever it stands.
  const id = keyId(origin, key.publicKey);
  const short = `\u2014 ${origin} ${Buffer.concat([id, Buffer.alloc(8)]).toString("base64")}`;
  const long = `\u2014 ${origin} ${Buffer.concat([Buffer.from(blob, "base64"), Buffer.alloc(1)]).toString("base64")}`;
  assert.match(refused(`${body}\n\n${short}\n${line}\n`), /does not verify/);
  assert.match(refused(`${body}\n\n${line}\n${long}\n`), /does not verify/);
  // Lines of other keys are carried, and a key of the log's name with another id is another key.
  const otherId = `\u2014 ${origin} ${Buffer.concat([Buffer.alloc(4), Buffer.alloc(64, 2)]).toString("base64")}`;
  assert.equal(refused(`${body}\n\n${otherId}\n${other}\n${line}\n`), "accepted");
});

test("verifier keys round-trip and the default origin names the key", () => {
  const vkey = verifierKey(origin, key.publicKey);
  assert.deepEqual(parseVerifierKey(vkey), { origin, publicKey: key.publicKey });
  assert.throws(() => parseVerifierKey(vkey.replace(/\+[0-9a-f]{8}\+/, "+00000000+")), RangeError);
  assert.match(defaultOrigin(key.publicKey), /^contract-hub\/[0-9a-f]{16}$/);
  assert.equal(
    defaultOrigin(key.publicKey),
    `contract-hub/${createHash("sha256").update(key.publicKey).digest("hex").slice(0, 16)}`,
  );
});
