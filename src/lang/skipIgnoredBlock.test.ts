import assert from "node:assert/strict";
import { test } from "node:test";
import { ParseError, parseModel, parseSource } from "./parser.js";

const REFERENCE_STYLE = `
action Deposit { +DEPOSIT +signed_by(/users/buyer.id) }
model Escrow {
  initial idle
  idle -> deposited [+DEPOSIT]
}
test escrow_flow {
  m = clone(Escrow)
  m.commit(Deposit)
  m.commit(action("+DEPOSIT"))
  assert m.satisfies(<+RELEASE> true)
}
test { assert true }
contract demo {
  commit { signed_by A "sig" model { part p { a -> b } } }
  commit { add_rule { always(true) } do +X }
}
rule_for_this_commit { signed_by_n(2, [/a.id, /b.id]) & signed_by(/c.id) }
formula f { <+DEPOSIT> true }
`;

test("the reference's action, test, contract and rule_for_this_commit blocks are accepted and ignored", () => {
  const items = parseSource(REFERENCE_STYLE).items;
  assert.deepEqual(
    items.map((i) => i.kind),
    ["model", "formula"],
  );
  assert.equal(parseModel(REFERENCE_STYLE.replace(/formula f \{[^}]*\}/, "")).name, "Escrow");
});

test("the block words stay ordinary names outside the block shape", () => {
  const m = parseModel("model m { initial test\n test -> action\n action -> contract }");
  assert.deepEqual(
    m.transitions.flatMap((t) => [t.from, t.to]),
    ["test", "action", "action", "contract"],
  );
  const items = parseSource("test").items;
  assert.equal(items.length, 1);
  assert.equal(items[0]?.kind, "rule");
});

test("an unclosed ignored block is a parse error naming the block", () => {
  assert.throws(
    () => parseSource("model m { a -> b }\ntest t {\n  assert true\n"),
    (e) => e instanceof ParseError && e.expected.includes("}") && /test/.test(e.message),
  );
  assert.throws(
    () => parseSource("action A +X"),
    (e) => e instanceof ParseError && e.line === 1 && e.column === 10,
  );
});
