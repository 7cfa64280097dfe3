import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { checkAt } from "./check.js";
import { BudgetExceededError } from "./checkErrors.js";
import type { Counterexample } from "./counterexample.js";
import { compileModel, type Lts } from "./Lts.js";
import { parseFormula, parseModel } from "./parser.js";

function failing(lts: Lts, formula: string, anchor: string): Counterexample {
  const result = checkAt(lts, parseFormula(formula), [anchor]);
  assert.equal(result.holds, false);
  assert.ok(result.failing?.counterexample);
  return result.failing.counterexample;
}
const named = (lts: Lts, states: readonly number[]) => states.map((s) => lts.displayNames[s]);
const labels = (lts: Lts, cx: Counterexample) =>
  cx.transitions.map((e) => lts.transitions[e]!.label.map((p) => p.name));

describe("counterexamples", () => {
  const chain = compileModel(
    parseModel("model C { part p { a -> b [+GO]\n b -> c [+STEP]\n c -> d [+BREAK]\n d -> d\n b -> b } }"),
  );

  test("always violated: shortest path to the violating state, with transition labels", () => {
    const cx = failing(chain, "always(!d)", "a");
    assert.equal(cx.kind, "path");
    assert.deepEqual(named(chain, cx.path), ["a", "b", "c", "d"]);
    assert.deepEqual(labels(chain, cx), [["GO"], ["STEP"], ["BREAK"]]);
    assert.equal(cx.state, cx.path[0]);
  });

  test("always violated at the anchor itself: a one-state path", () => {
    const cx = failing(chain, "always(!a)", "a");
    assert.equal(cx.kind, "state");
    assert.deepEqual(named(chain, cx.path), ["a"]);
    assert.deepEqual(cx.transitions, []);
  });

  test("eventually unreachable: the reachable set, none satisfying the target", () => {
    const lts = compileModel(
      parseModel(
        "model R { part f { start -> mid1\n start -> mid2\n mid1 -> target\n mid2 -> dead\n target -> target\n dead -> dead } }",
      ),
    );
    const cx = failing(lts, "eventually(target)", "mid2");
    assert.equal(cx.kind, "unreachable");
    assert.deepEqual(named(lts, cx.reachable!), ["mid2", "dead"]);
  });

  test("until: the states reachable through the left operand", () => {
    const cx = failing(chain, "(a | b) until d", "a");
    assert.equal(cx.kind, "unreachable");
    assert.deepEqual(named(chain, cx.reachable!), ["a", "b", "c"]);
  });

  test("a box step followed by always extends one path", () => {
    const cx = failing(chain, "[+GO] always(!c)", "a");
    assert.equal(cx.kind, "path");
    assert.deepEqual(named(chain, cx.path), ["a", "b", "c"]);
  });

  test("a failing conjunct is explained", () => {
    const cx = failing(chain, "true & always(!c)", "b");
    assert.deepEqual(named(chain, cx.path), ["b", "c"]);
  });

  test("the first-contract replacement: the unsigned loop violates the signer rule", () => {
    const lts = compileModel(
      parseModel(
        "model Contract { initial q0\n q0 -> q1 [+POST +MODEL]\n q1 -> q1 [+POST]\n q1 -> q1 [+RULE +signed_by(/parties/alice.id)] }",
      ),
    );
    const cx = failing(lts, "[] always([-signed_by(/parties/alice.id) -signed_by(/parties/bob.id)] false)", "q1");
    assert.equal(cx.kind, "path");
    const last = cx.transitions[cx.transitions.length - 1]!;
    assert.deepEqual(
      lts.transitions[last]!.label.map((p) => p.name),
      ["POST"],
    );
  });

  test("a local failure names the state", () => {
    const cx = failing(chain, "<-GO> true", "a");
    assert.equal(cx.kind, "state");
  });
});

describe("counterexample budget", () => {
  // A chain s0 → … → s50 with a side exit to `bad`; `lfp(X, s50 | <>X)` iterates 50 times.
  const lines = Array.from({ length: 50 }, (_, i) => `s${i} -> s${i + 1}`);
  const lts = compileModel(parseModel(`model B {\n${lines.join("\n")}\ns50 -> s50\ns0 -> bad\nbad -> bad\n}`));
  const inner = "lfp(X, s50 | <>X)";
  const nested = (depth: number) => parseFormula(`${"always(".repeat(depth)}${inner}${")".repeat(depth)}`);

  test("the whole explanation shares one budget: nesting cannot multiply the work", () => {
    const formula = nested(40);
    const meter = { visits: 0 };
    assert.equal(checkAt(lts, formula, ["s0"], { counterexample: false, meter }).holds, false);
    // Each level of the explanation re-evaluates the level below, about the whole evaluation's cost;
    // forty of them exceed three evaluations' worth of visits.
    assert.throws(
      () => checkAt(lts, formula, ["s0"], { budget: meter.visits * 3 }),
      (e: unknown) => e instanceof BudgetExceededError,
    );
  });

  test("a small explanation still fits", () => {
    const cx = failing(lts, `always(always(${inner}))`, "s0");
    assert.equal(cx.kind, "path");
    assert.deepEqual(named(lts, cx.path), ["s0", "bad"]);
  });
});
