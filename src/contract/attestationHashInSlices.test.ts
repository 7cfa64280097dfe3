import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { attestationHash, signAttestation, verifyAttestation } from "./attestation.js";
import {
  attestationHashInSlices,
  isBigAttestations,
  prepareAttestationHash,
  preparedAttestationHash,
} from "./attestationHashInSlices.js";
import { ContractError } from "./ContractError.js";
import { BIG_COMMIT_WEIGHT } from "./commitHashInSlices.js";
import { generateKeyPair } from "./keys.js";
import { parseJsonInSlices } from "./parseJsonInSlices.js";

const PARENT = "ab".repeat(32);

/** attestationHash's answer (hex), or the code and details of its refusal. */
function outcomeOf(f: () => Buffer): unknown {
  try {
    return f().toString("hex");
  } catch (err) {
    assert.ok(err instanceof ContractError, String(err));
    return { code: err.code, details: err.details };
  }
}

async function slicedOutcome(payload: Parameters<typeof attestationHash>[0], ticks: { n: number }) {
  try {
    return (await attestationHashInSlices(payload, () => void ticks.n++)).toString("hex");
  } catch (err) {
    assert.ok(err instanceof ContractError, String(err));
    return { code: err.code, details: err.details };
  }
}

describe("attestationHashInSlices", () => {
  it("weighs attestation claims and values, not the commit's data", () => {
    assert.equal(isBigAttestations(undefined), false);
    assert.equal(isBigAttestations([{ claim: "c", value: 1 }]), false);
    assert.equal(isBigAttestations([{ claim: "c", value: "x".repeat(BIG_COMMIT_WEIGHT) }]), true);
    assert.equal(isBigAttestations([{ claim: "x".repeat(BIG_COMMIT_WEIGHT), value: 1 }]), true);
    const halves = Array.from({ length: 2 }, () => ({ claim: "c", value: ["y".repeat(BIG_COMMIT_WEIGHT / 2)] }));
    assert.equal(isBigAttestations(halves), true);
  });

  it("gives attestationHash's hash, in pieces, for long strings, escapes, pairs, wide objects and numbers", async () => {
    const wide = await parseJsonInSlices(
      JSON.stringify(
        Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}é`, i % 7 === 0 ? -i / 3 : i])),
      ),
      {},
      { tick: async () => {} },
    );
    const values: unknown[] = [
      'a"\\\n\u0001é漢🙂'.repeat(40_000),
      ["x".repeat(70_000), { z: 1, a: [true, null, 1e21] }, "🙂".repeat(50_000)],
      wide,
      0,
    ];
    for (const value of values) {
      const payload = { contract_id: "c1", parent: PARENT, claim: `claim "${"q".repeat(70_000)}"`, value };
      const ticks = { n: 0 };
      assert.deepEqual(
        await slicedOutcome(payload, ticks),
        outcomeOf(() => attestationHash(payload)),
      );
      if (value !== 0) assert.ok(ticks.n > 1, `paused ${ticks.n} times`);
    }
    const genesis = { contract_id: "c1", parent: null, claim: "c", value: { b: 1, a: 2 } };
    assert.deepEqual(
      await slicedOutcome(genesis, { n: 0 }),
      outcomeOf(() => attestationHash(genesis)),
    );
  });

  it("refuses what attestationHash refuses, with the same pointer", async () => {
    for (const value of [{ a: ["ok", "\ud800"] }, [`${"x".repeat(70_000)}\udc00`], { n: 2 ** 60 }]) {
      const payload = { contract_id: "c1", parent: PARENT, claim: "c", value };
      const expected = outcomeOf(() => attestationHash(payload));
      assert.equal(typeof expected, "object");
      assert.deepEqual(await slicedOutcome(payload, { n: 0 }), expected);
    }
  });

  it("hands a prepared hash to the signature check once, for the very same value", async () => {
    const oracle = generateKeyPair();
    const value = { doc: "x".repeat(BIG_COMMIT_WEIGHT) };
    const signed = signAttestation(
      { contract_id: "c1", parent: PARENT, claim: "doc", value },
      oracle.seed,
      oracle.publicKey,
    );
    await prepareAttestationHash({ contract_id: "c1", parent: PARENT, claim: "doc", value }, () => {});
    // An equal copy is not the prepared value: it finds nothing.
    assert.equal(
      preparedAttestationHash({ contract_id: "c1", parent: PARENT, claim: "doc", value: { ...value } }),
      undefined,
    );
    assert.equal(verifyAttestation(signed, "c1", PARENT), true);
    assert.equal(preparedAttestationHash({ contract_id: "c1", parent: PARENT, claim: "doc", value }), undefined);
    // A refusal prepared is thrown by the signature check, as the one-piece hash would.
    const bad = { a: "\ud800" };
    await prepareAttestationHash({ contract_id: "c1", parent: PARENT, claim: "doc", value: bad }, () => {});
    assert.throws(
      () => verifyAttestation({ ...signed, value: bad }, "c1", PARENT),
      (err) => err instanceof ContractError && err.code === "INVALID_REQUEST",
    );
  });
});
