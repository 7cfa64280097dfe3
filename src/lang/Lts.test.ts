import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ModelError } from "./checkErrors.js";
import { compileModel, findStates, type Lts } from "./Lts.js";
import { parseModel } from "./parser.js";

const compile = (text: string): Lts => compileModel(parseModel(text));
const initialNames = (lts: Lts) => lts.initialStates.map((s) => lts.qualifiedNames[s]);
const warningCodes = (lts: Lts) =>
  lts.warnings.map((w) => `${w.code}:${w.state === null ? "-" : lts.displayNames[w.state]}`);

describe("compileModel: states and parts", () => {
  test("direct transitions form the part default; one part shows plain names", () => {
    const lts = compile("model M { initial a\n a -> b [+GO]\n b -> b }");
    assert.deepEqual(lts.parts, ["default"]);
    assert.deepEqual(lts.displayNames, ["a", "b"]);
    assert.deepEqual(lts.qualifiedNames, ["default:a", "default:b"]);
  });
  test("the same name in two parts is two states; display names are part:name", () => {
    const lts = compile("model M { part p { x -> y } part q { x -> x } }");
    assert.equal(lts.stateCount, 3);
    assert.deepEqual(lts.displayNames, ["p:x", "p:y", "q:x"]);
    assert.deepEqual(findStates(lts, "x"), [0, 2]);
    assert.deepEqual(findStates(lts, "q:x"), [2]);
    assert.deepEqual(findStates(lts, "r:x"), []);
  });
  test("successor and predecessor lists agree with the transitions", () => {
    const lts = compile("model M { a -> b\n a -> c\n c -> a\n b -> b }");
    const succ = (s: number) =>
      Array.from(lts.succEdge.subarray(lts.succStart[s]!, lts.succStart[s + 1]!)).map((e) => lts.edgeTo[e]);
    const pred = (s: number) =>
      Array.from(lts.predEdge.subarray(lts.predStart[s]!, lts.predStart[s + 1]!)).map((e) => lts.edgeFrom[e]);
    assert.deepEqual([succ(0), succ(1), succ(2)], [[1, 2], [1], [0]]);
    assert.deepEqual([pred(0), pred(1), pred(2)], [[2], [0, 1], [0]]);
  });
  test("labels are canonical: aliases and the party shorthand", () => {
    const lts = compile('model M { a -> b [+sets(/x.text, "v") +signed_by("buyer") +adds_rule()] }');
    assert.deepEqual(lts.transitions[0]!.label, [
      { sign: "+", name: "post_to", args: ["/x.text", "v"] },
      { sign: "+", name: "signed_by", args: ["/users/buyer.id"] },
      { sign: "+", name: "adds_rule", args: null },
    ]);
  });
});

describe("compileModel: initial state", () => {
  test("declared initial applies in every part that has it; other parts use the first source", () => {
    const lts = compile("model M { initial b\n part p { a -> b\n b -> a } part q { c -> d\n d -> e\n b -> c } }");
    assert.deepEqual(initialNames(lts), ["p:b", "q:b"]);
    const other = compile("model M { initial b\n part p { a -> b\n b -> a } part q { x -> y\n z -> x } }");
    assert.deepEqual(initialNames(other), ["p:b", "q:z"]);
  });
  test("the last initial declaration wins", () => {
    assert.deepEqual(initialNames(compile("model M { initial a\n initial b\n a -> b\n b -> a }")), ["default:b"]);
  });
  test("without a declaration: first source that is no target, else the first source", () => {
    assert.deepEqual(initialNames(compile("model M { b -> c\n a -> b\n c -> c }")), ["default:a"]);
    assert.deepEqual(initialNames(compile("model M { b -> a\n a -> b }")), ["default:b"]);
  });
  test("an initial state that occurs in no transition is a warning", () => {
    const lts = compile("model M { initial zz\n a -> a }");
    assert.deepEqual(initialNames(lts), ["default:a"]);
    assert.deepEqual(warningCodes(lts), ["INITIAL_NOT_FOUND:-"]);
  });
});

describe("compileModel: warnings and errors", () => {
  test("unreachable states and terminal states without self-loop", () => {
    const lts = compile("model M { initial a\n a -> b\n c -> a\n b -> b }");
    assert.deepEqual(warningCodes(lts), ["UNREACHABLE_STATE:c"]);
    const terminal = compile("model M { a -> b }");
    assert.deepEqual(warningCodes(terminal), ["TERMINAL_STATE:b"]);
  });
  test("a transition that requires a static label no commit can carry is a warning", () => {
    const lts = compile(
      "model M { a -> b [+ready +signed_by(/users/x.id)]\n a -> a [+GO -later]\n b -> b [+adds_rule] }",
    );
    assert.deepEqual(warningCodes(lts), ["LABEL_NEVER_CARRIED:a"]);
  });
  test("a well-formed model has no warnings", () => {
    assert.deepEqual(compile("model M { a -> b [+X]\n b -> a }").warnings, []);
  });
  test("a relative signed_by path is a model error with the transition's position", () => {
    assert.throws(
      () => compile('model M {\n  a -> b\n  b -> a [+signed_by("users/x.id")]\n}'),
      (e: unknown) => e instanceof ModelError && e.code === "MODEL_ERROR" && e.line === 3 && e.column === 3,
    );
  });
  test("a relative path in another predicate is a model error; party names and absolute paths are fine", () => {
    assert.throws(() => compile('model M { a -> a [+modifies("members")] }'), ModelError);
    assert.throws(() => compile('model M { a -> a [+threshold(2, "keys")] }'), ModelError);
    assert.doesNotThrow(() => compile("model M { a -> a [+threshold(2, /keys) +signed_by(arbiter)] }"));
  });
});
