import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Formula } from "./ast.js";
import { BudgetExceededError, FormulaError, MonotonicityError } from "./checkErrors.js";
import { evaluate, stateSetOf, stateSetToList } from "./evaluate.js";
import { compileModel } from "./Lts.js";
import { parseFormula, parseModel } from "./parser.js";

// Successors: s0→{s1,s2}, s1→{s3}, s2→{s2}, s3→{s1,s4}, s4 terminal.
const OPS = compileModel(
  parseModel(`model Ops {
    part flow {
      s0 -> s1 [+A]
      s0 -> s2 [-A]
      s1 -> s3 [+B +signed_by(/users/x.id)]
      s2 -> s2
      s3 -> s1 [+A]
      s3 -> s4 [+A +B]
    }
  }`),
);
const ALL = ["s0", "s1", "s2", "s3", "s4"];

function names(formula: string | Formula, strategy: "worklist" | "naive" = "worklist"): string[] {
  const f = typeof formula === "string" ? parseFormula(formula) : formula;
  return stateSetToList(evaluate(OPS, f, { strategy })).map((s) => OPS.displayNames[s]!);
}

/** Formula text → the states where it holds. Each row is also checked negated and naively. */
const TABLE: Array<[string, string[]]> = [
  ["true", ALL],
  ["false", []],
  ["s1", ["s1"]],
  ["nowhere", []],
  ["s1 | s2", ["s1", "s2"]],
  ["s1 & s2", []],
  ["!s1", ["s0", "s2", "s3", "s4"]],
  ["s3 -> [+B] s1", ["s0", "s1", "s2", "s4"]],
  ["<> s2", ["s0", "s2"]],
  ["next(s3)", ["s1"]],
  ["[] (s1 | s4)", ["s3", "s4"]],
  ["[] false", ["s4"]],
  ["<+A> true", ["s0", "s1", "s2", "s3"]],
  ["<-A> true", ["s0", "s1", "s2"]],
  ["[+A] s1", ["s0", "s4"]],
  ["[-A] false", ["s3", "s4"]],
  ["<+signed_by(/users/x.id)> s3", ["s1"]],
  ['<+signed_by("x")> s3', ["s1"]],
  ["<-signed_by(/users/x.id)> s3", []],
  ["[-signed_by(/users/x.id)] false", ["s1", "s4"]],
  // A predicate with other arguments does not mention signed_by(/users/x.id): every transition matches.
  ["[-signed_by(/users/y.id)] false", ["s4"]],
  ["[<+A>] true", ["s3"]],
  ["[<+A>] s4", ["s3"]],
  ["[<+A>] s2", []],
  ["[<>] s2", ["s0", "s2"]],
  ["eventually(s4)", ["s0", "s1", "s3", "s4"]],
  ["always(!s4)", ["s2"]],
  ["always(s2)", ["s2"]],
  ["always(s1 | s3)", []],
  ["s1 until s4", ["s4"]],
  ["(s1 | s3) until s4", ["s1", "s3", "s4"]],
  ["until(s1 | s3, s4)", ["s1", "s3", "s4"]],
  ["lfp(X, s4 | <>X)", ["s0", "s1", "s3", "s4"]],
  ["gfp(X, (s1 | s3) & <>X)", ["s1", "s3"]],
  ["gfp(Y, lfp(X, s1 | <>X) & <>Y)", ["s0", "s1", "s3"]],
  ["gfp(Y, lfp(X, s1 | <>X) & []Y)", []],
  ["lfp(X, false)", []],
  ["gfp(X, X)", ALL],
  // A bound variable hides the state of the same name.
  ["lfp(s1, s4 | <>s1)", ["s0", "s1", "s3", "s4"]],
  ["μX. (s4 | <>X)", ["s0", "s1", "s3", "s4"]],
  ["νX. □(s2)", ["s2"]],
];

describe("evaluate: every operator, and its negation", () => {
  for (const [formula, expected] of TABLE) {
    test(formula, () => {
      assert.deepEqual(names(formula), expected);
      assert.deepEqual(names(formula, "naive"), expected, "naive");
      const negated: Formula = { kind: "not", arg: parseFormula(formula) };
      assert.deepEqual(
        names(negated),
        ALL.filter((s) => !expected.includes(s)),
        "negated",
      );
    });
  }
});

describe("evaluate: parts and names", () => {
  const lts = compileModel(
    parseModel(`model Two {
      part g1 { n1 --> n2: +blue
                n2 --> n1 }
      part g2 { n1 --> n1: +yellow }
    }`),
  );
  test("an identifier names the state in every part", () => {
    assert.deepEqual(
      stateSetToList(evaluate(lts, parseFormula("n1"))).map((s) => lts.displayNames[s]),
      ["g1:n1", "g2:n1"],
    );
  });
  test("modalities stay inside a part", () => {
    assert.deepEqual(
      stateSetToList(evaluate(lts, parseFormula("<+blue> n2"))).map((s) => lts.displayNames[s]),
      ["g1:n1"],
    );
  });
});

describe("evaluate: approximation reuse", () => {
  // c and d cycle without meeting a: reusing the inner lfp from the previous outer iteration
  // (a set that is too large once Y shrinks) would keep {c, d}.
  const lts = compileModel(parseModel("model R { part p { c -> d\n d -> c\n c -> a\n a -> b\n b -> b } }"));
  test("an inner lfp restarts when the enclosing gfp variable shrinks", () => {
    assert.deepEqual(stateSetToList(evaluate(lts, parseFormula("gfp(Y, lfp(X, (a & <>Y) | <>X))"))), []);
  });
  test("an inner fixed point of the same kind keeps its approximation and stays exact", () => {
    const f = parseFormula("lfp(Y, b | lfp(X, <>Y | <>X))");
    assert.deepEqual(Array.from(evaluate(lts, f)), Array.from(evaluate(lts, f, { strategy: "naive" })));
    assert.deepEqual(
      stateSetToList(evaluate(lts, f)).map((s) => lts.displayNames[s]),
      ["c", "d", "a", "b"],
    );
  });
});

describe("evaluate: rejections", () => {
  test("non-monotone fixed point names the variable", () => {
    assert.throws(
      () => evaluate(OPS, parseFormula("lfp(X, !X)")),
      (e: unknown) => e instanceof MonotonicityError && e.variable === "X" && e.code === "NON_MONOTONE",
    );
  });
  test("relative path in a formula label", () => {
    assert.throws(
      () => evaluate(OPS, parseFormula("<+modifies(members)> true")),
      (e: unknown) => e instanceof FormulaError && e.code === "RELATIVE_PATH",
    );
  });
  test("budget exceeded", () => {
    assert.throws(
      () => evaluate(OPS, parseFormula("gfp(Y, lfp(X, s1 | <>X) & <>Y)"), { budget: 20 }),
      (e: unknown) => e instanceof BudgetExceededError && e.code === "BUDGET_EXCEEDED" && e.budget === 20,
    );
  });
  test("the same formula fits a sufficient budget", () => {
    assert.equal(evaluate(OPS, parseFormula("gfp(Y, lfp(X, s1 | <>X) & <>Y)"), { budget: 10_000 }).length, 5);
  });
});

describe("state sets", () => {
  test("stateSetOf and stateSetToList round-trip", () => {
    assert.deepEqual(stateSetToList(stateSetOf(6, [4, 1])), [1, 4]);
  });
});
