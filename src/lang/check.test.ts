import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { checkAt, checkAtInitial, resolveAnchors } from "./check.js";
import { ModelError } from "./checkErrors.js";
import { compileModel } from "./Lts.js";
import { parseFormula, parseModel } from "./parser.js";

const lts = compileModel(
  parseModel("model T { part g1 { n1 --> n2: +blue\n n2 --> n2 } part g2 { n1 --> n3: +yellow\n n3 --> n3 } }"),
);
const f = (text: string) => parseFormula(text);

describe("checkAt", () => {
  test("holds when the formula holds at every anchor", () => {
    const r = checkAt(lts, f("<> (n2 | n3)"), ["n1"]);
    assert.equal(r.holds, true);
    assert.deepEqual(r.anchors, [0, 2]);
    assert.equal(r.failing, undefined);
  });
  test("a plain name anchors at that name in every part: one failing part fails the check", () => {
    const r = checkAt(lts, f("<> n2"), ["n1"]);
    assert.equal(r.holds, false);
    assert.equal(lts.qualifiedNames[r.failing!.state], "g2:n1");
  });
  test("part:name anchors one state", () => {
    assert.equal(checkAt(lts, f("<> n2"), ["g1:n1"]).holds, true);
  });
  test("state indices as anchors", () => {
    assert.equal(checkAt(lts, f("n3"), [3]).holds, true);
    assert.equal(checkAt(lts, f("n3"), [1, 3]).holds, false);
  });
  test("an empty anchor set holds vacuously", () => {
    assert.equal(checkAt(lts, f("false"), []).holds, true);
  });
  test("unknown anchors are rejected", () => {
    assert.throws(
      () => resolveAnchors(lts, ["nope"]),
      (e: unknown) => e instanceof ModelError && e.code === "UNKNOWN_STATE",
    );
    assert.throws(() => resolveAnchors(lts, [99]), ModelError);
  });
  test("the satisfying set is returned whatever the anchors", () => {
    assert.deepEqual(Array.from(checkAt(lts, f("n2 | n3"), []).satisfying), [0, 1, 0, 1]);
  });
  test("counterexample can be skipped", () => {
    const r = checkAt(lts, f("always(n1)"), ["n1"], { counterexample: false });
    assert.equal(r.holds, false);
    assert.equal(r.failing?.counterexample, undefined);
  });
  test("checkAtInitial uses each part's initial state", () => {
    assert.deepEqual(checkAtInitial(lts, f("n1")).anchors, [0, 2]);
    assert.equal(checkAtInitial(lts, f("<+blue> n2")).holds, false);
  });
});
