import assert from "node:assert/strict";
import { test } from "node:test";
import { assertContractError } from "./assertContractError.js";
import { attestationCanonicalText, signAttestation, verifyAttestation, verifyAttestationAsync } from "./attestation.js";
import { generateKeyPair } from "./keys.js";

const parent = "aa".repeat(32);

test("the payload is JCS of {contract_id, parent, claim, value}", () => {
  assert.equal(
    attestationCanonicalText({ contract_id: "c1", parent, claim: "delivered", value: { ok: true } }),
    `{"claim":"delivered","contract_id":"c1","parent":"${parent}","value":{"ok":true}}`,
  );
});

test("an attestation verifies only at the position it was made for", async () => {
  const oracle = generateKeyPair();
  const att = signAttestation(
    { contract_id: "c1", parent, claim: "delivered", value: "yes" },
    oracle.seed,
    oracle.publicKey,
  );
  assert.equal(att.oracle, `ed25519:${oracle.publicKey.toString("hex")}`);
  assert.equal(verifyAttestation(att, "c1", parent), true);
  assert.equal(await verifyAttestationAsync(att, "c1", parent), true);
  assert.equal(verifyAttestation({ ...att, oracle: oracle.publicKey.toString("hex") }, "c1", parent), true);
  assert.equal(verifyAttestation(att, "c2", parent), false);
  assert.equal(verifyAttestation(att, "c1", "bb".repeat(32)), false);
  assert.equal(verifyAttestation(att, "c1", null), false);
  assert.equal(verifyAttestation({ ...att, value: "no" }, "c1", parent), false);
  assert.equal(verifyAttestation({ ...att, claim: "paid" }, "c1", parent), false);
  assert.equal(
    verifyAttestation({ ...att, oracle: `ed25519:${generateKeyPair().publicKey.toString("hex")}` }, "c1", parent),
    false,
  );
});

test("malformed oracle or signature is INVALID_REQUEST", async () => {
  const oracle = generateKeyPair();
  const att = signAttestation({ contract_id: "c1", parent, claim: "x", value: 1 }, oracle.seed, oracle.publicKey);
  assertContractError(() => verifyAttestation({ ...att, oracle: "ed25519:zz" }, "c1", parent), "INVALID_REQUEST");
  assertContractError(
    () => verifyAttestation({ ...att, signature: att.signature.slice(1) }, "c1", parent),
    "INVALID_REQUEST",
    "hex_odd_length",
  );
  await assert.rejects(verifyAttestationAsync({ ...att, signature: "00" }, "c1", parent), { code: "INVALID_REQUEST" });
});
