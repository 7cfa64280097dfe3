import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { formulaArb, modelArb, ruleArb, sourceArb, withoutPos } from "../../test/arbitraries.js";
import type { Formula, RuleDecl } from "./ast.js";
import { parseFormula, parseModel, parseRule, parseSource } from "./parser.js";
import { printFormula, printModel, printProperty, printRule, printSource } from "./printer.js";

const labels = ["A", "B", "POST", "RELEASE"];
const states = ["q0", "q1", "done", "a"];
const runs = { numRuns: 300 };

describe("printer round trip (fast-check)", () => {
  test("formulas", () => {
    fc.assert(
      fc.property(formulaArb({ states, labels, maxDepth: 6, monotone: false }), (f) => {
        assert.deepEqual(parseFormula(printFormula(f)), f);
      }),
      runs,
    );
  });
  test("models", () => {
    fc.assert(
      fc.property(modelArb({ states: 5, labels, maxParts: 3 }), (m) => {
        assert.deepEqual(withoutPos(parseModel(printModel(m))), withoutPos(m));
      }),
      runs,
    );
  });
  test("rules", () => {
    fc.assert(
      fc.property(ruleArb({ states, labels }), (r) => {
        assert.deepEqual(withoutPos(parseRule(printRule(r))), withoutPos(r));
      }),
      runs,
    );
  });
  test("source files", () => {
    fc.assert(
      fc.property(sourceArb({ states, labels, maxDepth: 3 }), (s) => {
        assert.deepEqual(withoutPos(parseSource(printSource(s))), withoutPos(s));
      }),
      runs,
    );
  });
  test("printing is a fixed point of parse∘print", () => {
    fc.assert(
      fc.property(formulaArb({ states, labels, maxDepth: 5 }), (f) => {
        const once = printFormula(f);
        assert.equal(printFormula(parseFormula(once)), once);
      }),
      runs,
    );
  });
});

describe("printFormula", () => {
  const cases: Array<[string, string]> = [
    ["a | b -> c", "a | b -> c"],
    ["(a | b) -> c", "(a | b) -> c"],
    ["a -> (b -> c)", "a -> b -> c"],
    ["(a -> b) -> c", "(a -> b) -> c"],
    ["a | (b | c)", "a | (b | c)"],
    ["(a | b) | c", "a | b | c"],
    ["a & (b & c)", "a & (b & c)"],
    ["!(a & b)", "!(a & b)"],
    ["not not a", "!!a"],
    ["[+A] (b | c)", "[+A] (b | c)"],
    ["(a until b) until c", "(a until b) until c"],
    ["a until b until c", "a until b until c"],
    ["until(a, b | c)", "until(a, b | c)"],
    ["μX. (a | <>X)", "lfp(X, a | <> X)"],
    ["νX. []X", "gfp(X, [] X)"],
    ["◇(a) & □(b)", "eventually(a) & always(b)"],
    ["[<+PAY, -B>] true", "[<+PAY -B>] true"],
    ["a implies b and c or d", "a -> b & c | d"],
  ];
  for (const [input, printed] of cases) {
    test(`${input} → ${printed}`, () => assert.equal(printFormula(parseFormula(input)), printed));
  }
  test("the one ambiguity of a bare formula list is parenthesised in printSource", () => {
    const bare = (formula: Formula): RuleDecl => ({
      kind: "rule",
      envelope: "bare",
      name: null,
      startingAt: null,
      formulaName: null,
      formula,
      pos: { line: 1, column: 1 },
    });
    const call: Formula = { kind: "until", left: { kind: "true" }, right: { kind: "false" }, form: "call" };
    const source = { items: [bare({ kind: "ident", name: "a" }), bare(call)] };
    assert.equal(printSource(source), "a\n\n(until(true, false))\n");
    assert.deepEqual(withoutPos(parseSource(printSource(source))), withoutPos(source));
  });
});

describe("printProperty", () => {
  const cases: Array<[Parameters<typeof printProperty>[0], string]> = [
    [{ sign: "+", name: "POST", args: null }, "+POST"],
    [{ sign: "-", name: "signed_by", args: ["/users/a.id"] }, "-signed_by(/users/a.id)"],
    [{ sign: "+", name: "threshold", args: ["2", "/treasury/signers"] }, "+threshold(2, /treasury/signers)"],
    [{ sign: "+", name: "signed_by", args: ["buyer"] }, '+signed_by("buyer")'],
    [{ sign: "+", name: "f", args: ["//x", "/*y", "a b", 'q"\n'] }, '+f("//x", "/*y", "a b", "q\\"\\n")'],
    [{ sign: "+", name: "adds_rule", args: [] }, "+adds_rule()"],
  ];
  for (const [p, text] of cases) test(text, () => assert.equal(printProperty(p), text));
});

describe("printModel and printRule layout", () => {
  test("model with initial, direct transitions of both arrows, and a part", () => {
    const text =
      'model M { q1 --> q2: +B -C  initial q0 part p { q0 -> q1 [] } q0 -> q1 [+A, +signed_by("/users/x.id")] }';
    assert.equal(
      printModel(parseModel(text)),
      [
        "model M {",
        "  initial q0",
        "  q1 --> q2: +B -C",
        "  q0 -> q1 [+A +signed_by(/users/x.id)]",
        "  part p {",
        "    q0 -> q1",
        "  }",
        "}",
      ].join("\n"),
    );
  });
  test("empty models and parts", () => {
    assert.equal(
      printModel(parseModel("export default model { part p { } }")),
      "export default model {\n  part p {}\n}",
    );
    assert.equal(printModel(parseModel("model E {}")), "model E {}");
  });
  test("rule envelopes", () => {
    assert.equal(
      printRule(parseRule("rule r { starting_at $PARENT formula f { a } }")),
      "rule r {\n  starting_at $PARENT\n  formula f {\n    a\n  }\n}",
    );
    assert.equal(
      printRule(parseRule("export default rule { formula { a } }")),
      "export default rule {\n  formula {\n    a\n  }\n}",
    );
    assert.equal(printRule(parseRule("  <+A> true ")), "<+A> true");
  });
});
