import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertContractError } from "../src/contract/assertContractError.js";
import { checkAtInitial } from "../src/lang/check.js";
import { compileModel } from "../src/lang/Lts.js";
import { parseModel, parseRule } from "../src/lang/parser.js";
import { getTemplate, listTemplates, TEMPLATE_DEFINITIONS } from "../src/templates/index.js";
import { ruleText } from "../src/templates/ruleText.js";
import type { ParamValues, PartyNames, TemplateDefinition } from "../src/templates/Template.js";

function holds(model: string, rule: string): boolean {
  return checkAtInitial(compileModel(parseModel(model)), parseRule(rule).formula).holds;
}

/** One-edit mutants of a model: a transition deleted, one property dropped, or the target moved. */
function* mutants(model: string): Generator<string> {
  const lines = model.split("\n");
  const transition = /^(\s*\w+ -> )(\w+)(.*)$/;
  const states = new Set(lines.flatMap((l) => /^\s*(\w+) -> (\w+)/.exec(l)?.slice(1) ?? []));
  for (const [i, line] of lines.entries()) {
    const m = transition.exec(line);
    if (!m) continue;
    const replace = (text: string) => lines.map((l, j) => (j === i ? text : l)).join("\n");
    yield lines.filter((_, j) => j !== i).join("\n");
    for (const prop of line.match(/[+-][A-Za-z_][A-Za-z0-9_]*(\([^)]*\))?/g) ?? [])
      yield replace(line.replace(prop, ""));
    for (const s of states) if (s !== m[2]) yield replace(`${m[1]}${s}${m[3]}`);
  }
}

function build(def: TemplateDefinition, values: ParamValues, names?: PartyNames) {
  const roles = names ?? Object.fromEntries(def.parties.map((r) => [r, r]));
  const body = def.build(values, roles);
  return { model: body.model, rules: body.rules.map(ruleText) };
}

describe("template catalogue", () => {
  it("lists the six templates without model or rules, each with typed params", () => {
    const list = listTemplates();
    assert.deepEqual(
      list.map((t) => t.id),
      ["escrow", "milestone", "atomic_swap", "multisig", "subscription", "service_agreement"],
    );
    for (const t of list) {
      assert.equal("model" in t, false);
      assert.equal("rules" in t, false);
      assert.ok(t.params.length > 0);
      for (const p of t.params) assert.equal(typeof p.required, "boolean");
    }
    const escrow = list[0]!.params.map((p) => [p.name, p.type, p.required]);
    assert.deepEqual(escrow.slice(0, 3), [
      ["buyer", "pubkey", true],
      ["seller", "pubkey", true],
      ["arbiter", "pubkey", false],
    ]);
  });

  it("answers NOT_FOUND for an unknown template", () => {
    assertContractError(() => getTemplate("nope"), "NOT_FOUND", "template_not_found");
  });

  it("gives escrow the DEPOSIT first step signed by the buyer, from init", () => {
    const lts = compileModel(parseModel(getTemplate("escrow").model));
    const [init] = lts.initialStates;
    assert.equal(lts.displayNames[init!], "init");
    const first = lts.transitions.filter((t) => t.from === init);
    assert.equal(first.length, 1);
    assert.equal(lts.displayNames[first[0]!.to], "deposited");
    assert.deepEqual(
      first[0]!.label.map((p) => `${p.sign}${p.name}${p.args ? `(${p.args.join(",")})` : ""}`),
      ["+DEPOSIT", "+signed_by(/users/buyer.id)"],
    );
  });

  it("fills the multisig threshold into the model", () => {
    const model = build(TEMPLATE_DEFINITIONS.find((t) => t.id === "multisig")!, { signers: [], threshold: 3 }).model;
    assert.match(model, /\+threshold\(3, \/signers\)/);
  });
});

describe("template rules hold on their models and are not vacuous", () => {
  for (const def of TEMPLATE_DEFINITIONS) {
    it(`${def.id}: the model compiles without warnings and every rule holds at init`, () => {
      const t = getTemplate(def.id);
      const lts = compileModel(parseModel(t.model));
      assert.deepEqual(lts.warnings, []);
      assert.ok(t.rules.length >= 2, "each template has real rules");
      for (const rule of t.rules) assert.ok(holds(t.model, rule), rule);
      assert.deepEqual(Object.keys(t.protections).sort(), [...def.parties].sort());
    });

    it(`${def.id}: every rule fails on some one-edit mutation of the model`, () => {
      const t = getTemplate(def.id);
      for (const rule of t.rules) {
        const killed = [...mutants(t.model)].some((m) => !holds(m, rule));
        assert.ok(killed, `no mutation falsifies ${rule}`);
      }
    });
  }

  const variants: Array<[string, ParamValues, PartyNames?]> = [
    ["escrow", { buyer: "", seller: "" }],
    ["escrow", { buyer: "", seller: "", arbiter: "" }, { buyer: "alice", seller: "bob", arbiter: "carol" }],
    ["milestone", { milestones: 1 }],
    ["milestone", { milestones: 5 }],
    ["multisig", { signers: [], threshold: 1 }],
    ["multisig", { signers: [], threshold: 16 }],
  ];
  for (const [id, values, names] of variants) {
    it(`${id} ${JSON.stringify(values)} ${names ? JSON.stringify(names) : ""}: rules hold`, () => {
      const { model, rules } = build(TEMPLATE_DEFINITIONS.find((t) => t.id === id)!, values, names);
      assert.deepEqual(compileModel(parseModel(model)).warnings, []);
      for (const rule of rules) assert.ok(holds(model, rule), rule);
      if (names) for (const n of Object.values(names)) assert.ok(model.includes(`/users/${n}.id`));
    });
  }
});
