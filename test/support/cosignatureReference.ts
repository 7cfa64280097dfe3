/**
 * The C2SP tlog-cosignature rules for ed25519 cosignatures, written out again from the
 * specification for the tests, independent of src/tlog: the verifier key's type byte and key
 * id, the signature line's key id ‖ big-endian timestamp ‖ signature, and the signed message.
 */
import assert from "node:assert/strict";
import { createHash, createPublicKey, verify } from "node:crypto";

/** Checks one cosignature line by `witnessVerifierKey` over a checkpoint body; returns its timestamp. */
export function checkCosignatureLine(line: string, witnessVerifierKey: string, checkpointBody: string): number {
  // name+id+key: the name and the hex id hold no "+", the base64 key may.
  const [name, id, ...rest] = witnessVerifierKey.split("+") as [string, string, ...string[]];
  const typedKey = rest.join("+");
  const typed = Buffer.from(typedKey, "base64");
  assert.equal(typed[0], 0x04, "a timestamped ed25519 cosigner key has type 0x04");
  const publicKey = typed.subarray(1);
  const expectedId = createHash("sha256")
    .update(Buffer.concat([Buffer.from(`${name}\n`), Buffer.from([0x04]), publicKey]))
    .digest()
    .subarray(0, 4);
  assert.equal(id, expectedId.toString("hex"));
  const m = /^\u2014 (\S+) (\S+)$/.exec(line);
  assert.ok(m, `not a signature line: ${line}`);
  assert.equal(m[1], name);
  const blob = Buffer.from(m[2]!, "base64");
  assert.equal(blob.length, 4 + 8 + 64);
  assert.deepEqual(blob.subarray(0, 4), expectedId);
  const timestamp = Number(blob.readBigUInt64BE(4));
  assert.ok(timestamp > 1_600_000_000, "the timestamp is seconds since the epoch");
  const message = Buffer.from(`cosignature/v1\ntime ${timestamp}\n${checkpointBody}`);
  const key = createPublicKey({
    key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), publicKey]),
    format: "der",
    type: "spki",
  });
  assert.ok(verify(null, message, key, blob.subarray(12)), "the cosignature verifies over the C2SP message");
  return timestamp;
}
