/**
 * The explorer's browser-side check of the log key's checkpoint signature
 * (web/src/logProof.ts `verifyNote`), run on Node's WebCrypto against notes signed by the
 * hub's own LogKey: a signed note verifies; text the hub should never send (a signature line
 * or a root that is not base64, a root of the wrong length, another origin) gives null, which
 * the page shows as unverified, instead of throwing.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { LogKey } from "../src/tlog/LogKey.js";
import { verifyNote } from "../web/src/logProof.js";

const log = new LogKey(randomBytes(32));
const root = randomBytes(32);
const note = log.sign({ size: 7, root });
const pub = log.publicKey.toString("hex");
const [body, signatures] = note.split("\n\n") as [string, string];

describe("verifyNote (explorer)", () => {
  it("verifies a note the log key signed and returns its size and root", async () => {
    const cp = await verifyNote(note, log.origin, pub);
    assert.ok(cp !== null);
    assert.deepEqual([cp.origin, cp.size, Buffer.from(cp.root).toString("hex")], [log.origin, 7, root.toString("hex")]);
  });

  it("skips a signature line that is not base64 and still finds a valid one after it", async () => {
    const garbage = `\u2014 ${log.origin} !!not*base64!!\n`;
    assert.equal(await verifyNote(`${body}\n\n${garbage}`, log.origin, pub), null);
    const cp = await verifyNote(`${body}\n\n${garbage}${signatures}`, log.origin, pub);
    assert.equal(cp?.size, 7);
  });

  it("gives null for a root that is not base64 or not 32 bytes, and for another origin", async () => {
    const withRoot = (text: string) => note.replace(root.toString("base64"), text);
    assert.equal(await verifyNote(withRoot("%%%%"), log.origin, pub), null);
    assert.equal(await verifyNote(withRoot(randomBytes(31).toString("base64")), log.origin, pub), null);
    assert.equal(await verifyNote(note, "example.com/other", pub), null);
  });
});
