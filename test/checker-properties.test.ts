/**
 * Properties of the checker on random models and formulas (LANGUAGE.md §3): the temporal
 * operators equal their fixed-point definitions, the worklist and Emerson–Lei evaluation
 * agree with naive Kleene iteration, non-monotone formulas are rejected, budgets hold.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import type { Formula, ModelDecl, Property, Transition } from "../src/lang/ast.js";
import { BudgetExceededError, FormulaError, ModelError, MonotonicityError } from "../src/lang/checkErrors.js";
import { evaluate } from "../src/lang/evaluate.js";
import { compileModel, type Lts } from "../src/lang/Lts.js";
import { isMonotone } from "../src/lang/monotonicity.js";
import * as shared from "./arbitraries.js";

const NAMES = ["a", "b", "c", "d", "e"];
const PROPS: Property[] = [
  { sign: "+", name: "A", args: null },
  { sign: "-", name: "A", args: null },
  { sign: "+", name: "B", args: null },
  { sign: "-", name: "B", args: null },
  { sign: "+", name: "signed_by", args: ["/users/x.id"] },
  { sign: "-", name: "signed_by", args: ["/users/y.id"] },
];
const pos = { line: 1, column: 1 };

const labelArb = fc.subarray(PROPS, { maxLength: 3 });
const transitionArb: fc.Arbitrary<Transition> = fc
  .record({ from: fc.constantFrom(...NAMES), to: fc.constantFrom(...NAMES), label: labelArb })
  .map((t) => ({ ...t, arrow: "->", pos }));
const modelArb: fc.Arbitrary<Lts> = fc
  .array(fc.array(transitionArb, { minLength: 1, maxLength: 14 }), { minLength: 1, maxLength: 2 })
  .map((parts) => {
    const decl: ModelDecl = {
      kind: "model",
      name: "Random",
      form: "named",
      initial: null,
      transitions: [],
      parts: parts.map((transitions, i) => ({ name: `p${i}`, transitions, pos })),
      pos,
    };
    return compileModel(decl);
  });

/**
 * Builds a monotone formula from a stream of choices (so fast-check shrinks the stream):
 * a bound variable is used only where its negation count since the binder is even.
 */
function buildFormula(choices: readonly number[], maxDepth: number): Formula {
  let i = 0;
  const next = () => choices[i++] ?? 0;
  const label = () => PROPS.filter((_, k) => (next() >> k) & 1).slice(0, 2);
  const build = (depth: number, scope: ReadonlyArray<[string, number]>, neg: number): Formula => {
    // Fixed points (15) and variables (3) are drawn more often than their share of 16.
    const raw = next() % (depth === 0 ? 4 : 20);
    const c = raw >= 16 ? (raw % 2 === 0 ? 15 : 3) : raw;
    const sub = (n = neg, s = scope) => build(depth - 1, s, n);
    switch (c) {
      case 0:
        return { kind: "true" };
      case 1:
        return { kind: "false" };
      case 3: {
        const usable = scope.filter(([, at]) => (neg - at) % 2 === 0);
        if (usable.length > 0) return { kind: "ident", name: usable[next() % usable.length]![0] };
        return { kind: "ident", name: NAMES[next() % NAMES.length]! };
      }
      case 4:
        return { kind: "not", arg: sub(neg + 1) };
      case 5:
      case 6:
        return { kind: c === 5 ? "and" : "or", left: sub(), right: sub() };
      case 7:
        return { kind: "implies", left: sub(neg + 1), right: sub() };
      case 8:
      case 9:
      case 10:
        return { kind: (["diamond", "box", "diamondbox"] as const)[c - 8]!, label: label(), arg: sub() };
      case 11:
      case 12:
      case 14:
        return { kind: c === 11 ? "always" : c === 12 ? "eventually" : "next", arg: sub() };
      case 13:
        return { kind: "until", left: sub(), right: sub(), form: "infix" };
      case 15: {
        const variable = `X${depth}`;
        const body = sub(neg, [...scope, [variable, neg]]);
        return { kind: next() % 2 === 0 ? "lfp" : "gfp", variable, body };
      }
      default:
        return { kind: "ident", name: NAMES[next() % NAMES.length]! };
    }
  };
  return build(maxDepth, [], 0);
}

const formulaArb = (maxDepth: number) =>
  fc.array(fc.nat({ max: 1 << 16 }), { maxLength: 100 }).map((choices) => buildFormula(choices, maxDepth));

const RUNS = { numRuns: 300 };
const v = (name: string): Formula => ({ kind: "ident", name });
const same = (lts: Lts, f: Formula, g: Formula) =>
  assert.deepEqual(Array.from(evaluate(lts, f)), Array.from(evaluate(lts, g)));

describe("temporal operators equal their fixed-point definitions", () => {
  test("always(f) = gfp(X, []X & f)", () => {
    fc.assert(
      fc.property(modelArb, formulaArb(3), (lts, f) => {
        const def: Formula = {
          kind: "gfp",
          variable: "Z",
          body: { kind: "and", left: { kind: "box", label: [], arg: v("Z") }, right: f },
        };
        same(lts, { kind: "always", arg: f }, def);
      }),
      RUNS,
    );
  });
  test("eventually(f) = lfp(X, <>X | f)", () => {
    fc.assert(
      fc.property(modelArb, formulaArb(3), (lts, f) => {
        const def: Formula = {
          kind: "lfp",
          variable: "Z",
          body: { kind: "or", left: { kind: "diamond", label: [], arg: v("Z") }, right: f },
        };
        same(lts, { kind: "eventually", arg: f }, def);
      }),
      RUNS,
    );
  });
  test("until(p, q) = lfp(X, q | (p & <>X)) = q | (p & <>(p until q))", () => {
    fc.assert(
      fc.property(modelArb, formulaArb(2), formulaArb(2), (lts, p, q) => {
        const until: Formula = { kind: "until", left: p, right: q, form: "call" };
        const step = (arg: Formula): Formula => ({
          kind: "or",
          left: q,
          right: { kind: "and", left: p, right: { kind: "diamond", label: [], arg } },
        });
        same(lts, until, { kind: "lfp", variable: "Z", body: step(v("Z")) });
        same(lts, until, step(until));
      }),
      RUNS,
    );
  });
  test("next(f) = <> f", () => {
    fc.assert(
      fc.property(modelArb, formulaArb(3), (lts, f) =>
        same(lts, { kind: "next", arg: f }, { kind: "diamond", label: [], arg: f }),
      ),
      RUNS,
    );
  });
});

describe("worklist and Emerson–Lei evaluation agree with naive iteration", () => {
  test("random monotone formulas, nested and alternating fixed points included", () => {
    fc.assert(
      fc.property(modelArb, formulaArb(5), (lts, f) => {
        assert.deepEqual(Array.from(evaluate(lts, f)), Array.from(evaluate(lts, f, { strategy: "naive" })));
      }),
      { numRuns: 600 },
    );
  });
});

/** Alternating nestings where reusing an inner approximation across outer iterations would be wrong. */
const alternatingArb = fc
  .tuple(formulaArb(2), labelArb, labelArb, fc.nat({ max: 3 }))
  .map(([f, l1, l2, shape]): Formula => {
    const dY: Formula = { kind: "diamond", label: l1, arg: v("Y") };
    const bY: Formula = { kind: "box", label: l1, arg: v("Y") };
    const dX: Formula = { kind: "diamond", label: l2, arg: v("X") };
    const bX: Formula = { kind: "box", label: l2, arg: v("X") };
    const not = (arg: Formula): Formula => ({ kind: "not", arg });
    const and = (left: Formula, right: Formula): Formula => ({ kind: "and", left, right });
    const or = (left: Formula, right: Formula): Formula => ({ kind: "or", left, right });
    const fix = (kind: "lfp" | "gfp", variable: string, body: Formula): Formula => ({ kind, variable, body });
    switch (shape) {
      case 0: // νY. μX. (f ∧ <L1>Y) ∨ <L2>X: a path meeting f infinitely often
        return fix("gfp", "Y", fix("lfp", "X", or(and(f, dY), dX)));
      case 1:
        return fix("lfp", "Y", fix("gfp", "X", and(or(f, bY), bX)));
      case 2: // the inner fixed point is antitone in Y: reuse depends on the variable's polarity
        return fix("lfp", "Y", or(f, not(fix("lfp", "X", or(not(dY), dX)))));
      default:
        return fix("gfp", "Y", and(f, not(fix("gfp", "X", and(not(bY), bX)))));
    }
  });

describe("alternating fixed points agree with naive iteration", () => {
  test("νY.μX and μY.νX nestings", () => {
    fc.assert(
      fc.property(modelArb, alternatingArb, (lts, f) => {
        assert.deepEqual(Array.from(evaluate(lts, f)), Array.from(evaluate(lts, f, { strategy: "naive" })));
      }),
      { numRuns: 1000 },
    );
  });
});

describe("with the shared arbitraries (parser's generators)", () => {
  const opts = { labels: ["A", "B"], states: ["q0", "q1", "q2", "q3"], maxDepth: 4 };
  /** Compiles, or null for a model the checker rightly rejects (a generated relative path). */
  const compiled = shared.modelArb({ ...opts, states: 4, maxTransitions: 10 }).map((decl) => {
    try {
      return compileModel(decl);
    } catch (e) {
      if (e instanceof ModelError) return null;
      throw e;
    }
  });
  test("worklist equals naive; non-monotone formulas are rejected by both", () => {
    fc.assert(
      fc.property(compiled, shared.formulaArb({ ...opts, monotone: false }), (lts, f) => {
        fc.pre(lts !== null);
        const run = (strategy: "worklist" | "naive") => {
          try {
            return Array.from(evaluate(lts!, f, { strategy }));
          } catch (e) {
            if (e instanceof FormulaError) return e.code;
            throw e;
          }
        };
        const result = run("worklist");
        assert.deepEqual(run("naive"), result);
        if (!isMonotone(f)) assert.equal(result, "NON_MONOTONE");
      }),
      { numRuns: 400 },
    );
  });
});

describe("rejections", () => {
  test("a variable under an odd number of negations is rejected, naming it", () => {
    fc.assert(
      fc.property(modelArb, formulaArb(3), fc.constantFrom<"lfp" | "gfp">("lfp", "gfp"), (lts, f, kind) => {
        const body: Formula = { kind: "or", left: f, right: { kind: "not", arg: v("W") } };
        assert.throws(
          () => evaluate(lts, { kind, variable: "W", body }),
          (e: unknown) => e instanceof MonotonicityError && e.variable === "W",
        );
      }),
      RUNS,
    );
  });
  test("a budget smaller than one pass over the states is exceeded", () => {
    fc.assert(
      fc.property(modelArb, (lts) => {
        assert.throws(
          () =>
            evaluate(lts, { kind: "always", arg: { kind: "eventually", arg: v("a") } }, { budget: lts.stateCount - 1 }),
          BudgetExceededError,
        );
      }),
      RUNS,
    );
  });
});
