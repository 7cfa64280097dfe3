import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { Operation } from "./Commit.js";
import { ContractError } from "./ContractError.js";
import { canonicalize } from "./canonicalJson.js";
import { computeCommitHash } from "./commitHash.js";
import {
  BIG_COMMIT_WEIGHT,
  commitHashInSlices,
  isBigCommitData,
  prepareCommitHash,
  preparedCommitHash,
  sortInSlices,
} from "./commitHashInSlices.js";
import { memberNamesOf } from "./memberNames.js";
import { parseJsonInSlices } from "./parseJsonInSlices.js";

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

describe("commitHashInSlices of a wide object", () => {
  /** Member names in no order: integer-like, escaped, non-ASCII, astral, near one another. */
  const nameOf = (i: number) =>
    [`m${((i * 2654435761) >>> 0).toString(36)}`, String(i), `é"${i}`, `\ud83d\ude42${i}`, `a/~${i}`][i % 5]!;

  it("sorts sequences of keys as Array.prototype.sort does, in pieces", () => {
    for (const n of [0, 1, 4_095, 4_096, 4_097, 20_000]) {
      const keys = Array.from({ length: n }, (_, i) => nameOf((i * 7919) % (n + 1)));
      const pieces = sortInSlices(keys);
      let step = pieces.next();
      let pauses = 0;
      for (; !step.done; step = pieces.next()) pauses++;
      assert.deepEqual(step.value, keys.slice().sort());
      assert.ok(pauses >= Math.ceil(n / 4_096), `${pauses} pauses for ${n} keys`);
    }
  });

  it("pauses while it orders 300,000 members parsed in slices, and gives computeCommitHash's hash", async () => {
    const members = 300_000;
    const text = `{${Array.from({ length: members }, (_, i) => `${JSON.stringify(nameOf(i))}:${i % 3}`).join(",")}}`;
    const value = (await parseJsonInSlices(text, {}, { tick: async () => {} })) as Record<string, unknown>;
    assert.equal(memberNamesOf(value)?.length, members);
    const data: Operation[] = [{ method: "post", path: "/wide.json", value }];
    assert.ok(isBigCommitData(data));
    const ticks = { n: 0 };
    assert.equal(await slicedOutcome(data, ticks), computeCommitHash("c1", PARENT, data));
    // One pause per 4,096 keys sorted at least, besides one per 64 K characters of text
    // written: the sort of all the keys in one piece held the loop 350-550 ms.
    const written = Math.floor(canonicalize(value).length / (64 * 1024));
    assert.ok(ticks.n >= written + members / 4_096, `${ticks.n} ticks, ${written} for the text`);
  });
});
