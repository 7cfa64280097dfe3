import assert from "node:assert/strict";
import { test } from "node:test";
import { evaluateBuiltin, type PredicateInput } from "./builtinPredicates.js";

const a = "aa".repeat(32);
const b = "bb".repeat(32);
const input = (signers: string[]): PredicateInput => ({
  data: new Map<string, unknown>([
    ["/signers/one.id", a],
    ["/signers/two.id", b],
  ]),
  ops: [],
  signers: new Set(signers),
  attestations: [],
  timestamp: 0,
});

test("threshold counts decimal digits only: an empty, hex or exponent count never passes", () => {
  assert.equal(evaluateBuiltin("threshold", ["2", "/signers"], input([a, b]))?.valid, true);
  assert.equal(evaluateBuiltin("threshold", ["2", "/signers"], input([a]))?.valid, false);
  assert.equal(evaluateBuiltin("threshold", ["0", "/signers"], input([]))?.valid, true);
  // Number() read "" as 0 (no signature needed), "0x2" as 2 and " 1" as 1.
  for (const count of ["", " ", "0x2", "1e1", " 1", "-1", "1.0"]) {
    const r = evaluateBuiltin("threshold", [count, "/signers"], input([a, b]));
    assert.equal(r?.valid, false, JSON.stringify(count));
  }
});
