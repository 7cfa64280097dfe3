import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { commitFromRow } from "./commitRows.js";
import { parseStoredJson } from "./parseStoredJson.js";

/** Long strings whose cuts fall on escapes, escaped and raw surrogate pairs, quotes and backslashes. */
const long = fc
  .tuple(
    fc.constantFrom("x", "\\", '"', "\n", "\u0001", "\ud83d\ude42", "\u00e9", "\\u", "a\\\\"),
    fc.integer({ min: 20_000, max: 90_000 }),
  )
  .map(([unit, n]) => unit.repeat(n));
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.string(),
    long,
    // What the hub stores: no integer beyond ±(2^53−1), no `__proto__` member (refused on the way in).
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n) || Number.isSafeInteger(n)),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(fc.string(), long).filter((k) => k !== "__proto__"),
      tie("value"),
      { maxKeys: 4 },
    ),
  ),
})).value;

describe("parseStoredJson", () => {
  it("gives what JSON.parse gives for stored texts, long strings and names included", async () => {
    await fc.assert(
      fc.asyncProperty(json, async (value) => {
        const text = JSON.stringify(value);
        assert.deepEqual(await parseStoredJson(text), JSON.parse(text));
      }),
      { numRuns: 150 },
    );
  });

  it("reads a row holding one string of 15 MB the same, and a damaged long string as a SyntaxError", async () => {
    const value = `${'\ud83d\ude42é\\"'.repeat(3_000_000)}`;
    const row = {
      idx: 1,
      hash: "h",
      parent: null,
      data: JSON.stringify([{ method: "post", path: "/a.json", value }]),
      signatures: "{}",
      attestations: null,
      timestamp: 1,
      signers: "[]",
      leaf_index: null,
    };
    const commit = await commitFromRow(row);
    assert.equal(commit.data[0]!.value, value);
    const damaged = { ...row, data: row.data.replace("\\\\", "\\x") };
    await assert.rejects(async () => commitFromRow(damaged), SyntaxError);
  });
});
