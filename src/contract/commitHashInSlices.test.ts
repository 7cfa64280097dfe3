import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { Operation } from "./Commit.js";
import { ContractError } from "./ContractError.js";
import { computeCommitHash } from "./commitHash.js";
import {
  BIG_COMMIT_WEIGHT,
  commitHashInSlices,
  isBigCommitData,
  prepareCommitHash,
  preparedCommitHash,
} from "./commitHashInSlices.js";

const PARENT = "ab".repeat(32);

/** computeCommitHash's answer: the hash, or the code, reason and pointer of its refusal. */
function outcomeOf(f: () => string): unknown {
  try {
    return f();
  } catch (err) {
    assert.ok(err instanceof ContractError, String(err));
    return { code: err.code, details: err.details };
  }
}

async function slicedOutcome(data: Operation[], ticks: { n: number }): Promise<unknown> {
  try {
    return await commitHashInSlices("c1", PARENT, data, () => {
      ticks.n++;
    });
  } catch (err) {
    assert.ok(err instanceof ContractError, String(err));
    return { code: err.code, details: err.details };
  }
}

/** Strings with escapes, astral characters and lone surrogate halves, some long enough to be cut. */
const text = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.string({ unit: fc.constantFrom("a", "\u00e9", "\u6f22", "\ud83d\ude42", '"', "\\", "\n", "\u0001", "\ud800") }),
  fc
    .tuple(fc.constantFrom("x", "\u00e9", "\ud83d\ude42", '"\n'), fc.integer({ min: 30_000, max: 70_000 }))
    .map(([unit, n]) => unit.repeat(n)),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    text,
    fc.double(),
    fc.integer(),
    fc.constantFrom(2 ** 53, -0, 1e21, 5e-7),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 6 }),
    fc.dictionary(text, tie("value"), { maxKeys: 6 }),
  ),
})).value;

describe("commitHashInSlices", () => {
  it("gives computeCommitHash's hash, or its refusal, for varied values", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(json, { minLength: 1, maxLength: 3 }), async (values) => {
        const data: Operation[] = values.map((value, i) => ({ method: "post", path: `/v/n${i}.any`, value }));
        const ticks = { n: 0 };
        assert.deepEqual(
          await slicedOutcome(data, ticks),
          outcomeOf(() => computeCommitHash("c1", PARENT, data)),
        );
      }),
      { numRuns: 300 },
    );
  });

  it("hashes 15 MB in many pieces to the same hash: a string with pairs at every cut, and nested arrays", async () => {
    const long = "\ud83d\ude42".repeat(4_000_000);
    const nested = Array.from({ length: 20_000 }, (_, i) => ({ i, s: `é${i}`, a: [[i / 3], { z: null, y: true }] }));
    for (const value of [long, `x${long}`, nested]) {
      const data: Operation[] = [
        { method: "post", path: "/big.any", value },
        { method: "action", value: "GO" },
      ];
      const ticks = { n: 0 };
      assert.equal(await slicedOutcome(data, ticks), computeCommitHash("c1", PARENT, data));
      assert.ok(ticks.n > 10, `${ticks.n} ticks`);
    }
  });

  it("hands a prepared hash to the shape check once, for the very same values", async () => {
    const value = "z".repeat(BIG_COMMIT_WEIGHT);
    const data: Operation[] = [{ method: "post", path: "/big.text", value }];
    assert.ok(isBigCommitData(data));
    assert.ok(!isBigCommitData([{ method: "post", path: "/a.text", value: "small" }]));
    await prepareCommitHash("c1", PARENT, data, () => {});
    assert.equal(preparedCommitHash("c1", null, data), undefined);
    assert.equal(preparedCommitHash("c1", PARENT, [{ method: "post", path: "/big.text", value: "other" }]), undefined);
    assert.equal(preparedCommitHash("c1", PARENT, [{ ...data[0]! }]), computeCommitHash("c1", PARENT, data));
    assert.equal(preparedCommitHash("c1", PARENT, data), undefined);
  });
});
