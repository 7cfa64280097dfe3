/**
 * Property names that are also names of Object.prototype members (`constructor`, `toString`,
 * `__proto__`) are ordinary names: a static label, a custom predicate, a label in the
 * valid actions (LANGUAGE.md §2, §5, §6).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { stateView } from "../src/contract/engine.js";
import { compileModel, parseModel } from "../src/lang/index.js";
import { ContractDriver, op } from "./support/ContractDriver.js";
import { failedOn } from "./support/engineAsserts.js";
import { Party } from "./support/Party.js";

async function contract(model: string) {
  const owner = new Party("owner");
  const d = await ContractDriver.create("names1", {
    model,
    rules: [],
    owner: owner.identity,
    state: { "/users/owner.id": owner.key },
  });
  return { d, owner };
}

describe("property names shared with Object.prototype", () => {
  it("compiles them under their own names", () => {
    const lts = compileModel(parseModel("model m { a -> b [+constructor -toString() +__proto__(/x)] }"));
    assert.deepEqual(
      lts.transitions[0]!.label.map((p) => [p.sign, p.name, p.args]),
      [
        ["+", "constructor", null],
        ["-", "toString", []],
        ["+", "__proto__", ["/x"]],
      ],
    );
  });

  it("valid_actions names a +constructor transition by its label", async () => {
    const { d } = await contract("model m { a -> b [+constructor +signed_by(/users/owner.id)] \n b -> b [] }");
    const [action] = stateView(d.state).valid_actions;
    assert.equal(action?.action, "constructor");
    assert.equal(action?.label, "+constructor +signed_by(/users/owner.id)");
    assert.deepEqual(action?.required_signers, ["/users/owner.id"]);
  });

  it("custom predicates named toString / __proto__ without a module are false", async () => {
    const { d, owner } = await contract(
      "model m { a -> b [+GO -toString()] \n a -> c [+__proto__()] \n b -> b [] \n c -> c [] }",
    );
    const details = await assertContractErrorAsync(
      () => d.commit([op.action("STOP")], [owner]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(failedOn(details, "a", "c"), [["missing", "+__proto__()"]]);
    assert.deepEqual(failedOn(details, "a", "b"), [["missing", "+GO"]]);
    await d.commit([op.action("GO")], [owner]);
    assert.equal(stateView(d.state).current_state, "b");
  });
});
