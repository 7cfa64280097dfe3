/** The explorer's view of custom predicates: which transitions they guard, and a rejection's gas. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { customGuards, gasNote } from "../web/src/customPredicates.js";
import { modelView } from "../web/src/modelView.js";

test("lists the transitions a custom predicate guards, with the module each runs", () => {
  const view = modelView(`model M {
    initial open
    open -> open [+INSTALL +modifies(/_code) +signed_by(/users/owner.id)]
    open -> paid [+PAY +spend_limit(/payment/amount.json, 1000) -frozen(1)]
    paid -> paid []
  }`);
  assert.deepEqual(customGuards(view), [
    {
      from: "open",
      to: "paid",
      label: view.edges[1]!.label,
      predicates: [
        {
          text: "+spend_limit(/payment/amount.json, 1000)",
          name: "spend_limit",
          module: "/_code/custom/spend_limit.wasm",
          negated: false,
        },
        { text: "-frozen(1)", name: "frozen", module: "/_code/custom/frozen.wasm", negated: true },
      ],
    },
  ]);
  assert.deepEqual(customGuards(modelView("model N { initial a a -> a [+GO +signed_by(/u.id)] }")), []);
});

test("a failed custom predicate's gas reads after its errors; built-ins carry none", () => {
  assert.equal(gasNote({ gas_used: 75504 }), " — gas 75,504");
  assert.equal(gasNote({}), "");
});
