import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Property } from "./ast.js";
import { FormulaError } from "./checkErrors.js";
import { compileModel } from "./Lts.js";
import { canonicalLabel, flipLabel, labelMatches, matchingEdges } from "./labelMatches.js";
import { parseModel } from "./parser.js";

const p = (text: string): Property => {
  const m = /^([+-])(\w+)(?:\((.*)\))?$/.exec(text)!;
  return {
    sign: m[1] as "+" | "-",
    name: m[2]!,
    args: m[3] === undefined ? null : m[3].split(",").map((a) => a.trim()),
  };
};
const label = (...texts: string[]) => texts.map(p);

describe("labelMatches", () => {
  test("a transition carrying the property exactly matches", () => {
    assert.equal(labelMatches(label("+A", "+B"), label("+A")), true);
  });
  test("a transition carrying the opposite sign does not match", () => {
    assert.equal(labelMatches(label("-A"), label("+A")), false);
  });
  test("a transition not mentioning the property matches (potentialist reading)", () => {
    assert.equal(labelMatches([], label("+A", "-B")), true);
  });
  test("a predicate is mentioned only with the same arguments", () => {
    assert.equal(labelMatches(label("+signed_by(/c.id)"), label("-signed_by(/a.id)")), true);
    assert.equal(labelMatches(label("+signed_by(/a.id)"), label("-signed_by(/a.id)")), false);
  });
  test("a static label and a predicate of the same name are different properties", () => {
    assert.equal(labelMatches(label("+f(/x)"), label("-f")), true);
  });
  test("every property of the list must match", () => {
    assert.equal(labelMatches(label("+A", "-B"), label("+A", "+B")), false);
  });
  test("flipLabel flips each sign and keeps arguments", () => {
    assert.deepEqual(flipLabel(label("+A", "-signed_by(/a.id)")), label("-A", "+signed_by(/a.id)"));
  });
  test("canonicalLabel resolves aliases and rejects relative paths", () => {
    assert.deepEqual(canonicalLabel(label("+sets(/x.text, v)")), label("+post_to(/x.text, v)"));
    assert.throws(
      () => canonicalLabel(label("+after(x.date)")),
      (e: unknown) => e instanceof FormulaError,
    );
  });
});

describe("matchingEdges agrees with labelMatches", () => {
  const lts = compileModel(
    parseModel(`model M { part p {
      a -> b [+A +signed_by(/x.id)]
      b -> c [-A]
      c -> a
      a -> c [+signed_by(/y.id) -B]
    } }`),
  );
  const labels = [
    label("+A"),
    label("-A"),
    label("-signed_by(/x.id)"),
    label("+signed_by(/y.id)", "+A"),
    label("+B"),
    label("+Z"),
    [],
  ];
  for (const l of labels) {
    test(l.map((q) => `${q.sign}${q.name}`).join(" ") || "(empty)", () => {
      const mask = Array.from(matchingEdges(lts, l));
      assert.deepEqual(
        mask,
        lts.transitions.map((t) => (labelMatches(t.label, l) ? 1 : 0)),
      );
    });
  }
});
