import assert from "node:assert/strict";
import { test } from "node:test";
import type { Formula } from "./ast.js";
import { children } from "./children.js";

const p: Formula = { kind: "ident", name: "p" };
const q: Formula = { kind: "ident", name: "q" };

test("children are in order, negated under not and left of an implication", () => {
  assert.deepEqual(children({ kind: "implies", left: p, right: q }), [
    { formula: p, negated: true },
    { formula: q, negated: false },
  ]);
  assert.deepEqual(children({ kind: "not", arg: p }), [{ formula: p, negated: true }]);
  assert.deepEqual(children({ kind: "gfp", variable: "x", body: q }), [{ formula: q, negated: false }]);
  assert.deepEqual(children({ kind: "box", label: [], arg: p }), [{ formula: p, negated: false }]);
  assert.deepEqual(children(p), []);
});
