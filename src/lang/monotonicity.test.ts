import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MonotonicityError } from "./checkErrors.js";
import { checkMonotone, isMonotone } from "./monotonicity.js";
import { parseFormula } from "./parser.js";

const variableOf = (text: string): string | null => {
  try {
    checkMonotone(parseFormula(text));
    return null;
  } catch (e) {
    assert.ok(e instanceof MonotonicityError);
    return e.variable;
  }
};

describe("checkMonotone", () => {
  test("even negations are accepted", () => {
    assert.equal(variableOf("lfp(X, a | <>X)"), null);
    assert.equal(variableOf("lfp(X, !!X)"), null);
    assert.equal(variableOf("gfp(Y, !lfp(X, !Y | <>X))"), null);
    assert.equal(variableOf("lfp(X, !X -> false)"), null);
  });
  test("an odd number of negations is rejected, naming the variable", () => {
    assert.equal(variableOf("lfp(X, !X)"), "X");
    assert.equal(variableOf("gfp(Y, a & lfp(X, <>X | !Y))"), "Y");
    assert.equal(variableOf("gfp(Z, [] !(Z))"), "Z");
  });
  test("the left side of implies counts as a negation", () => {
    assert.equal(variableOf("lfp(X, X -> a)"), "X");
    assert.equal(variableOf("lfp(X, a -> X)"), null);
  });
  test("negations outside the binder do not count", () => {
    assert.equal(variableOf("!lfp(X, a | <>X)"), null);
  });
  test("an inner binder of the same name shadows the outer one", () => {
    assert.equal(variableOf("lfp(X, !gfp(X, X))"), null);
  });
  test("an unbound identifier is a state name, not a variable", () => {
    assert.equal(variableOf("!X & lfp(Y, <>Y)"), null);
  });
  test("isMonotone", () => {
    assert.equal(isMonotone(parseFormula("lfp(X, !X)")), false);
    assert.equal(isMonotone(parseFormula("lfp(X, <>X)")), true);
  });
});
