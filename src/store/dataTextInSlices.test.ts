import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { memberNamesOf } from "../contract/memberNames.js";
import { parseJsonInSlices } from "../contract/parseJsonInSlices.js";
import { dataTextInSlices } from "./dataTextInSlices.js";

/** Strings with escapes and astral characters, some long enough to be cut. */
const text = fc.oneof(
  fc.string({ unit: "grapheme" }),
  fc.string({ unit: fc.constantFrom("a", "\u00e9", "\ud83d\ude42", '"', "\\", "\n", "\u0001") }),
  fc
    .tuple(fc.constantFrom("x", "\ud83d\ude42", '"\n'), fc.integer({ min: 30_000, max: 70_000 }))
    .map(([unit, n]) => unit.repeat(n)),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    text,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    // Left out as a member, null as an element, as JSON.stringify writes them.
    fc.constant(undefined),
    fc.array(tie("value"), { maxLength: 6 }),
    fc.dictionary(fc.oneof(text, fc.nat().map(String)), tie("value"), { maxKeys: 6 }),
  ),
})).value;

describe("dataTextInSlices", () => {
  it("writes JSON.stringify's text for varied values", async () => {
    await fc.assert(
      fc.asyncProperty(json, async (value) => {
        const data = [{ method: "post", path: "/v.json", value }];
        assert.equal(await dataTextInSlices(data, () => {}), JSON.stringify(data));
      }),
      { numRuns: 300 },
    );
  });

  it("writes a wide parsed object, array indices first, in many pieces, byte for byte", async () => {
    const members = 100_000;
    const names = Array.from({ length: members }, (_, i) =>
      i % 3 === 0 ? String((i * 7919) % 1_000_003) : `k${((i * 2654435761) >>> 0).toString(36)}é`,
    );
    const source = `{${names.map((k, i) => `${JSON.stringify(k)}:[${i}]`).join(",")}}`;
    const value = await parseJsonInSlices(source, {}, { tick: async () => {} });
    assert.equal(memberNamesOf(value as object)?.length, members);
    const data = [{ method: "post", path: "/wide.json", value }];
    let ticks = 0;
    const written = await dataTextInSlices(data, () => {
      ticks++;
    });
    assert.equal(written, JSON.stringify(data));
    assert.ok(ticks >= written.length / (64 * 1024), `${ticks} ticks`);
  });
});
