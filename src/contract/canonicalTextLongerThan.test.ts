import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { canonicalize } from "./canonicalJson.js";
import { canonicalTextLongerThan } from "./canonicalTextLongerThan.js";
import { parseJsonInSlices } from "./parseJsonInSlices.js";

/** JSON values canonicalize accepts (the only ones a commit holds), strings with escapes and pairs. */
const jsonValues = fc
  .jsonValue({ maxDepth: 4, stringUnit: fc.constantFrom("a", "é", "漢", "🙂", '"', "\\", "\n", "\u0001", "z") })
  .filter((v) => {
    try {
      canonicalize(v);
      return true;
    } catch {
      return false;
    }
  });

describe("canonicalTextLongerThan", () => {
  it("property: says longer only when the canonical text is longer, and never at the text's own length", () => {
    fc.assert(
      fc.property(jsonValues, fc.nat(400), (value, limit) => {
        const length = canonicalize(value).length;
        const longer = canonicalTextLongerThan(value, limit);
        if (longer) assert.ok(length > limit, `${length} <= ${limit}`);
        // Not tight (a number counts one digit, an escape one character), but never blind.
        assert.equal(canonicalTextLongerThan(value, length), false);
      }),
      { numRuns: 2_000 },
    );
  });

  it("settles on the first items past the limit: the rest of a value is never read", () => {
    const items: unknown[] = Array.from({ length: 100_000 }, (_, i) => i);
    Object.defineProperty(items, 1_000, {
      get() {
        throw new Error("read past the limit");
      },
    });
    assert.equal(canonicalTextLongerThan(items, 50), true);
    // A long array is settled by its commas alone.
    assert.equal(canonicalTextLongerThan(items, 90_000), true);
    const object: Record<string, unknown> = { a: "x".repeat(100) };
    Object.defineProperty(object, "b", {
      enumerable: true,
      get() {
        throw new Error("read past the limit");
      },
    });
    assert.equal(canonicalTextLongerThan(object, 20), true);
  });

  it("counts a wide parsed object from the names its parser kept", async () => {
    const text = JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])));
    const wide = await parseJsonInSlices(text, {}, { tick: async () => {} });
    const length = canonicalize(wide).length;
    assert.equal(canonicalTextLongerThan(wide, 7), true);
    assert.equal(canonicalTextLongerThan(wide, length), false);
    assert.equal(canonicalTextLongerThan(wide, 20_000 * 5), true);
  });

  it("counts literals, empty containers and strings exactly", () => {
    const cases: Array<[unknown, number]> = [
      [null, 4],
      [true, 4],
      [false, 5],
      [[], 2],
      [{}, 2],
      ["ab", 4],
      [{ ab: null }, 11],
      [[1, 2], 5],
    ];
    for (const [value, length] of cases) {
      assert.equal(canonicalize(value).length, length, JSON.stringify(value));
      assert.equal(canonicalTextLongerThan(value, length), false, JSON.stringify(value));
      assert.equal(canonicalTextLongerThan(value, length - 1), true, JSON.stringify(value));
    }
  });
});
