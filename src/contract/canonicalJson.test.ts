import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { assertContractError } from "./assertContractError.js";
import { canonicalBytes, canonicalize, safeJsonParse } from "./canonicalJson.js";

/**
 * An independent reference for JCS over the hub's domain: keys ordered by comparing their
 * UTF-16 big-endian bytes (RFC 8785 §3.2.3 in its own words), primitives by JSON.stringify.
 */
function referenceJcs(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(referenceJcs).join(",")}]`;
  const utf16be = (s: string) => Buffer.from(s, "utf16le").swap16();
  const keys = Object.keys(v).sort((a, b) => Buffer.compare(utf16be(a), utf16be(b)));
  return `{${keys.map((k) => `${JSON.stringify(k)}:${referenceJcs((v as Record<string, unknown>)[k])}`).join(",")}}`;
}

const key = fc.string({ unit: "binary", maxLength: 6 });
const number = fc.oneof(
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d) || Number.isSafeInteger(d)),
);
const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    number,
    fc.string({ unit: "binary", maxLength: 8 }),
    fc.array(tie("json"), { maxLength: 4 }),
    fc.dictionary(key, tie("json"), { maxKeys: 5, noNullPrototype: true }),
  ),
}));

/** Rebuilds every object of `v` with its keys inserted in a shuffled order. */
function permuteKeys(v: unknown, rand: () => number): unknown {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map((x) => permuteKeys(x, rand));
  const entries = Object.entries(v).sort(() => rand() - 0.5);
  const out: Record<string, unknown> = {};
  for (const [k, x] of entries)
    Object.defineProperty(out, k, {
      value: permuteKeys(x, rand),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

test("property: agrees with the independent reference", () => {
  fc.assert(
    fc.property(json, (v) => assert.equal(canonicalize(v), referenceJcs(v))),
    { numRuns: 500 },
  );
});

test("property: key insertion order never matters", () => {
  fc.assert(
    fc.property(json, fc.integer(), (v, seed) => {
      let s = seed;
      const rand = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
      assert.equal(canonicalize(permuteKeys(v, rand)), canonicalize(v));
    }),
    { numRuns: 300 },
  );
});

test("property: canonical text parses back to the same canonical text", () => {
  fc.assert(
    fc.property(json, (v) => {
      const text = canonicalize(v);
      assert.equal(canonicalize(safeJsonParse(text)), text);
      assert.equal(canonicalize(JSON.parse(text)), text);
    }),
    { numRuns: 500 },
  );
});

test("RFC 8785 §3.2.2 example (1E30 left out: integral beyond 2^53, refused by docs/protocol.md)", () => {
  const input =
    '{"numbers": [333333333.33333329, 4.50, 2e-3, 0.000000000000000000000000001],' +
    '"string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
    '"literals": [null, true, false]}';
  assert.equal(
    canonicalize(safeJsonParse(input)),
    '{"literals":[null,true,false],"numbers":[333333333.3333333,4.5,0.002,1e-27],' +
      '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
  );
  assertContractError(() => safeJsonParse("[1E30]"), "INVALID_REQUEST", "integer_out_of_range");
});

test("RFC 8785 §3.2.3 sorting example", () => {
  const input = {
    "\u20ac": "Euro Sign",
    "\r": "Carriage Return",
    "\ufb33": "Hebrew Letter Dalet With Dagesh",
    "1": "One",
    "\ud83d\ude00": "Emoji: Grinning Face",
    "\u0080": "Control",
    "\u00f6": "Latin Small Letter O With Diaeresis",
  };
  assert.equal(
    canonicalize(input),
    '{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin Small Letter O With Diaeresis",' +
      '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
  );
});

test("RFC 8785 Appendix B numbers within the hub's range", () => {
  const cases: [string, string][] = [
    ["0000000000000000", "0"],
    ["8000000000000000", "0"],
    ["0000000000000001", "5e-324"],
    ["8000000000000001", "-5e-324"],
    ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
    ["3eb0c6f7a0b5ed8d", "0.000001"],
    ["41b3de4355555553", "333333333.3333332"],
    ["41b3de4355555554", "333333333.33333325"],
    ["41b3de4355555555", "333333333.3333333"],
    ["41b3de4355555556", "333333333.3333334"],
    ["41b3de4355555557", "333333333.33333343"],
    ["becbf647612f3696", "-0.0000033333333333333333"],
    ["43143ff3c1cb0959", "1424953923781206.2"],
  ];
  for (const [ieee, text] of cases) {
    const n = Buffer.from(ieee, "hex").readDoubleBE(0);
    assert.equal(canonicalize(n), text, ieee);
  }
  // The integral ones of Appendix B lie beyond 2^53 and are refused.
  for (const ieee of [
    "7fefffffffffffff",
    "4340000000000000",
    "4430000000000000",
    "44b52d02c7e14af6",
    "444b1ae4d6e2ef50",
  ]) {
    assertContractError(
      () => canonicalize(Buffer.from(ieee, "hex").readDoubleBE(0)),
      "INVALID_REQUEST",
      "integer_out_of_range",
    );
  }
  for (const ieee of ["7fffffffffffffff", "7ff0000000000000"]) {
    assertContractError(
      () => canonicalize(Buffer.from(ieee, "hex").readDoubleBE(0)),
      "INVALID_REQUEST",
      "non_finite_number",
    );
  }
});

test("integer range is exactly ±(2^53−1)", () => {
  assert.equal(canonicalize(Number.MAX_SAFE_INTEGER), "9007199254740991");
  assert.equal(canonicalize(-Number.MAX_SAFE_INTEGER), "-9007199254740991");
  assertContractError(() => canonicalize(2 ** 53), "INVALID_REQUEST", "integer_out_of_range");
  assertContractError(() => safeJsonParse("9007199254740993"), "INVALID_REQUEST", "integer_out_of_range");
  assertContractError(() => safeJsonParse("-9007199254740992"), "INVALID_REQUEST", "integer_out_of_range");
  assertContractError(() => safeJsonParse("1e400"), "INVALID_REQUEST", "integer_out_of_range");
  assert.equal(safeJsonParse("9007199254740991"), Number.MAX_SAFE_INTEGER);
});

test("depth limit is 64 containers, in both canonicalize and safeJsonParse", () => {
  const nest = (n: number) => "[".repeat(n) + "]".repeat(n);
  assert.equal(canonicalize(safeJsonParse(nest(64))), nest(64));
  assert.equal(assertContractError(() => safeJsonParse(nest(65)), "INVALID_REQUEST", "json_too_deep").position, 64);
  assertContractError(() => canonicalize(JSON.parse(nest(65))), "INVALID_REQUEST", "json_too_deep");
  assertContractError(() => canonicalize([[1]], { maxDepth: 1 }), "INVALID_REQUEST", "json_too_deep");
  // Brackets inside strings, escaped quotes included, do not count.
  const text = `{"a":"${"[".repeat(100)}\\"${"{".repeat(100)}"}`;
  assert.deepEqual(safeJsonParse(text), JSON.parse(text));
  // A depth that would overflow JSON.parse's stack is refused before parsing.
  assertContractError(() => safeJsonParse(nest(1_000_000)), "INVALID_REQUEST", "json_too_deep");
});

test("non-JSON values are refused with a pointer to them", () => {
  const cases: unknown[] = [
    undefined,
    () => 1,
    Symbol("x"),
    1n,
    new Date(0),
    new Map(),
    new Array(3),
    { a: { b: [undefined] } },
  ];
  for (const v of cases) assertContractError(() => canonicalize(v), "INVALID_REQUEST", "non_json_value");
  assert.equal(
    assertContractError(() => canonicalize({ a: { b: [1, undefined] } }), "INVALID_REQUEST").pointer,
    "/a/b/1",
  );
  assert.equal(assertContractError(() => canonicalize({ "x/y~": NaN }), "INVALID_REQUEST").pointer, "/x~1y~0");
  assert.equal(canonicalize(Object.create(null)), "{}");
});

test("lone surrogates are refused (I-JSON); paired ones are kept", () => {
  assertContractError(() => canonicalize("a\ud800"), "INVALID_REQUEST", "lone_surrogate");
  assertContractError(() => canonicalize({ "\udc00": 1 }), "INVALID_REQUEST", "lone_surrogate");
  assertContractError(() => safeJsonParse('{"a":"\\ud800"}'), "INVALID_REQUEST", "lone_surrogate");
  assert.equal(canonicalize("\ud83d\ude00"), '"😀"');
  assert.deepEqual(canonicalBytes("é"), Buffer.from([0x22, 0xc3, 0xa9, 0x22]));
});

test("safeJsonParse refuses __proto__ keys at any depth and never pollutes prototypes", () => {
  const d = assertContractError(
    () => safeJsonParse('{"a":[{"__proto__":{"polluted":1}}]}'),
    "INVALID_REQUEST",
    "forbidden_key",
  );
  assert.equal(d.pointer, "/a/0");
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.deepEqual(safeJsonParse('{"constructor":1,"proto":2}'), { constructor: 1, proto: 2 });
});

test("safeJsonParse reports syntax errors with a position, and length limits as 413", () => {
  const d = assertContractError(() => safeJsonParse('{"a":1,}'), "INVALID_REQUEST", "json_syntax");
  assert.equal(typeof d.position, "number");
  assertContractError(() => safeJsonParse('"abc'), "INVALID_REQUEST", "json_syntax");
  assertContractError(() => safeJsonParse("[1,2,3]", { maxLength: 3 }), "PAYLOAD_TOO_LARGE", "json_too_long");
});
