import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { assertContractError } from "./assertContractError.js";
import { safeJsonParse } from "./canonicalJson.js";
import { countJsonMembers, scanJsonText } from "./scanJsonText.js";

const dupOf = (text: string) => scanJsonText(text, 64)?.key ?? null;

test("a repeated member name is found at any depth", () => {
  assert.equal(dupOf('{"a":1,"a":2}'), "a");
  assert.equal(dupOf('{"x":{"a":1,"b":{"c":1,"c":2}}}'), "c");
  assert.equal(dupOf('[1,{"k":[{"v":"a","v":"b"}]}]'), "v");
  assert.equal(dupOf('{"a":[1,2,{"b":1}],"a":3}'), "a");
  const wide = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(",");
  assert.equal(dupOf(`{${wide},"k17":0}`), "k17");
});

test("names equal after unescaping are duplicates", () => {
  assert.equal(dupOf('{"a":1,"\\u0061":2}'), "a");
  assert.equal(dupOf('{"a\\"b":1,"a\\u0022b":2}'), 'a"b');
  assert.equal(dupOf('{"\\/":1,"/":2}'), "/");
  assert.equal(dupOf('{"\\ud83d\\ude00":1,"😀":2}'), "😀");
});

test("equal names in different objects, and names inside string values, are not duplicates", () => {
  assert.equal(dupOf('[{"a":1},{"a":2}]'), null);
  assert.equal(dupOf('{"a":{"a":1}}'), null);
  assert.equal(dupOf('{"a":"a","b":"a"}'), null);
  assert.equal(dupOf('{"s":"{\\"a\\":1,\\"a\\":2}","t":"x\\\\"}'), null);
  assert.equal(dupOf('{"a":1,"A":2,"a ":3}'), null);
});

test("JSON.stringify output never has a duplicate (the scan agrees with the parser)", () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 5 }), (v) => scanJsonText(JSON.stringify(v), 64) === null),
    { numRuns: 500 },
  );
});

test("safeJsonParse: duplicate_key after a successful parse; syntax errors win", () => {
  const details = assertContractError(
    () => safeJsonParse('{"value":"a","value":"b"}'),
    "INVALID_REQUEST",
    "duplicate_key",
  );
  assert.equal(details.key, "value");
  assertContractError(() => safeJsonParse('{"p":{"q":1,"\\u0071":2}}'), "INVALID_REQUEST", "duplicate_key");
  assertContractError(() => safeJsonParse('{"a":1 "a":2}'), "INVALID_REQUEST", "json_syntax");
  assert.deepEqual(safeJsonParse('{"a":1,"b":{"a":2}}'), { a: 1, b: { a: 2 } });
});

test("depth is still limited before parsing", () => {
  assertContractError(() => scanJsonText("[".repeat(65) + "]".repeat(65), 64), "INVALID_REQUEST", "json_too_deep");
  assert.equal(scanJsonText("[".repeat(64) + "]".repeat(64), 64), null);
});

test("countJsonMembers counts every member name at any depth, and none inside strings", () => {
  const keysOf = (v: unknown): number =>
    Array.isArray(v)
      ? v.reduce((n: number, e) => n + keysOf(e), 0)
      : v !== null && typeof v === "object"
        ? Object.entries(v).reduce((n, [, e]) => n + 1 + keysOf(e), 0)
        : 0;
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 5 }), (v) => countJsonMembers(JSON.stringify(v), 64) === keysOf(v)),
    { numRuns: 500 },
  );
  assert.equal(countJsonMembers('{"a:b":"c:d","e":{"f\\":":1}}', 64), 3);
  assertContractError(() => countJsonMembers("{".repeat(65), 64), "INVALID_REQUEST", "json_too_deep");
});

test("safeJsonParse refuses a duplicate hidden deep in a large body", () => {
  const commits = Array.from({ length: 200 }, (_, i) => ({ i, head: { signatures: { a: "x" } } }));
  const text = JSON.stringify({ commits }).replace(
    '"signatures":{"a":"x"}}},{"i":150',
    '"signatures":{"a":"x","a":"y"}}},{"i":150',
  );
  const details = assertContractError(() => safeJsonParse(text), "INVALID_REQUEST", "duplicate_key");
  assert.equal(details.key, "a");
});
