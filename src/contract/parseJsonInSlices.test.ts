import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { ContractError } from "./ContractError.js";
import { safeJsonParse } from "./canonicalJson.js";
import { parseJsonInSlices } from "./parseJsonInSlices.js";

/** Pieces this small cut every container with more than a couple of children. */
const TINY = { weight: 2, chars: 8 };

/** The value or the refusal (code, reason) of a parse. */
type Outcome = { value: unknown } | { code: string; reason: unknown };

function outcomeOf(run: () => unknown): Outcome {
  try {
    return { value: run() };
  } catch (err) {
    assert.ok(err instanceof ContractError, String(err));
    return { code: err.code, reason: err.details?.reason };
  }
}

async function slicedOutcome(text: string, pieces = TINY): Promise<{ outcome: Outcome; ticks: number }> {
  let ticks = 0;
  const tick = async () => {
    ticks++;
  };
  try {
    return { outcome: { value: await parseJsonInSlices(text, { maxDepth: 8 }, { tick, pieces }) }, ticks };
  } catch (err) {
    assert.ok(err instanceof ContractError, String(err));
    return { outcome: { code: err.code, reason: err.details?.reason }, ticks };
  }
}

async function sameAsSafeJsonParse(text: string): Promise<void> {
  const expected = outcomeOf(() => safeJsonParse(text, { maxDepth: 8 }));
  const { outcome } = await slicedOutcome(text);
  assert.deepEqual(outcome, expected, text);
}

/** Texts near JSON: valid values, and the same with one character dropped, doubled or replaced. */
const nearJson = fc
  .tuple(
    fc.jsonValue({ maxDepth: 4 }),
    fc.constantFrom(0, 2),
    fc.nat(),
    fc.constantFrom("none", "drop", "double", "replace"),
    fc.constantFrom(",", "]", "}", "[", "{", ":", '"', " ", "x", "1"),
  )
  .map(([value, indent, at, edit, ch]) => {
    const text = JSON.stringify(value, null, indent);
    const i = at % Math.max(1, text.length);
    if (edit === "drop") return text.slice(0, i) + text.slice(i + 1);
    if (edit === "double") return text.slice(0, i) + text[i] + text.slice(i);
    if (edit === "replace") return text.slice(0, i) + ch + text.slice(i + 1);
    return text;
  });

describe("parseJsonInSlices", () => {
  it("gives the value or the refusal safeJsonParse gives, for texts near JSON cut into tiny pieces", async () => {
    await fc.assert(fc.asyncProperty(nearJson, sameAsSafeJsonParse), { numRuns: 3000 });
  });

  it("agrees on the hub's own refusals inside cut containers", async () => {
    const cases = [
      '[1,2,3,{"a":1,"b":2,"a":3},4,5]', // duplicate inside one piece
      '{"a":1,"b":2,"c":3,"d":4,"a":5}', // duplicate across pieces of one object
      '{"a":1,"b":2,"c":[1,2,3,4,5,6,7],"d":4,"c":5}', // across pieces, the first a heavy child
      '[1,2,3,4,{"__proto__":1},5]',
      '{"a":1,"b":2,"c":3,"__proto__":{"x":1}}',
      '{"a":1,"b":2,"c":3,"__proto__":[1,2,3,4,5,6,7,8]}',
      "[1,2,3,4,5,9007199254740993,7]",
      '[1,2,3,4,"\\ud800",6]',
      '{"a":1,"b":2,"c":3,"\\udc00":4}',
      "[1,2,3,4,5,6,]",
      "[,1,2,3,4,5,6]",
      "[1,2,3,4,5,6] 7",
      "[1,2,3,[4,5,6,7,8,9],10,11] [",
      "[1,2,3,4,5,6",
      '[1,2,3,"4,5,6]',
      "[1,2,3,4,5,6}",
      "[[[[[[[[[1]]]]]]]]]",
      '{"a":1,"b":2,"c":3,"d" 4}',
      '{"a":1,"b":2,"c":3,"d":[1,2,3,4,5,6,7,8] 9}',
      '{"a":1,"b":2,"c":3,[1,2,3,4,5,6,7,8]}',
      '{"a":{"x":1,"y":2,"z":3},"b":1{"x":1,"y":2,"z":3},"c":2}', // junk between a name and its heavy value
      "[1,2,5[1,2,3,4,5,6],7]",
      "x[1,2,3,4,5,6,7,8]",
    ];
    for (const text of cases) await sameAsSafeJsonParse(text);
  });

  it("names the element that fails a check by its JSON pointer, counted in the whole text", async () => {
    const text = JSON.stringify({ list: [1, 2, 3, 4, 5, { deep: [0, 0, 2 ** 60] }], name: "x" });
    const sync = (() => {
      try {
        safeJsonParse(text);
      } catch (err) {
        return (err as ContractError).details;
      }
    })();
    await assert.rejects(parseJsonInSlices(text, {}, { tick: async () => {}, pieces: TINY }), (err: ContractError) => {
      assert.deepEqual(err.details, sync);
      assert.equal(err.details?.pointer, "/list/5/deep/2");
      return true;
    });
  });

  it("puts a syntax error at its place in the whole text", async () => {
    const text = "[1,2,3,4,5,6,7,8,9,10,11,12,1x,14]";
    await assert.rejects(parseJsonInSlices(text, {}, { tick: async () => {}, pieces: TINY }), (err: ContractError) => {
      assert.equal(err.details?.reason, "json_syntax");
      assert.equal(text[err.details?.position as number], "x");
      return true;
    });
  });

  it("refuses a __proto__ member of a cut object without setting any prototype", async () => {
    const text = '{"a":1,"b":2,"c":3,"__proto__":{"polluted":true}}';
    await assert.rejects(parseJsonInSlices(text, {}, { tick: async () => {}, pieces: TINY }), (err: ContractError) => {
      assert.deepEqual([err.code, err.details?.reason, err.details?.pointer], ["INVALID_REQUEST", "forbidden_key", ""]);
      return true;
    });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it("cuts 16 MiB of tiny values into many pieces with the default sizes, and rebuilds the same value", async () => {
    const deep = `[${Array.from({ length: 2_000 }, () => `${"[".repeat(60)}${"]".repeat(60)}`).join(",")}]`;
    const members = `{${Array.from({ length: 100_000 }, (_, i) => `"k${i}":${i}`).join(",")}}`;
    for (const text of [deep, members]) {
      let ticks = 0;
      const value = await parseJsonInSlices(
        text,
        {},
        {
          tick: async () => {
            ticks++;
          },
        },
      );
      assert.deepEqual(value, JSON.parse(text));
      assert.ok(ticks >= 5, `${ticks} ticks`);
    }
  });

  it("takes a turn only to rebuild a heavy value, and gives it back when the text fails", async () => {
    const turns: string[] = [];
    const turn = async () => {
      turns.push("take");
      return () => turns.push("give");
    };
    const tick = async () => {};
    assert.deepEqual(await parseJsonInSlices("[1,2]", {}, { tick, turn, pieces: TINY }), [1, 2]);
    assert.deepEqual(turns, []);
    assert.deepEqual(await parseJsonInSlices("[1,2,3,4,5,6]", {}, { tick, turn, pieces: TINY }), [1, 2, 3, 4, 5, 6]);
    await assert.rejects(parseJsonInSlices("[1,2,3,4,5,x]", {}, { tick, turn, pieces: TINY }), ContractError);
    assert.deepEqual(turns, ["take", "give", "take", "give"]);
  });

  it("refuses more arrays and objects than its limit before rebuilding any, naming where", async () => {
    const text = `[${Array.from({ length: 10 }, () => "[[]]").join(",")}]`;
    const tick = async () => {};
    assert.equal(((await parseJsonInSlices(text, { maxContainers: 21 }, { tick })) as unknown[]).length, 10);
    await assert.rejects(parseJsonInSlices(text, { maxContainers: 20 }, { tick }), (err: ContractError) => {
      assert.deepEqual(
        [err.code, err.details?.reason, err.details?.limit, err.details?.position],
        ["PAYLOAD_TOO_LARGE", "json_too_many_containers", 20, text.length - 4],
      );
      return true;
    });
  });

  it("parses a light text in one piece, without ticking", async () => {
    const { outcome, ticks } = await slicedOutcome('{"a":[1,2,3]}', { weight: 16_384, chars: 256 * 1024 });
    assert.deepEqual(outcome, { value: { a: [1, 2, 3] } });
    assert.equal(ticks, 0);
  });
});
