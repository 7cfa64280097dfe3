import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkAtInitial } from "../src/lang/check.js";
import { compileModel } from "../src/lang/Lts.js";
import { parseModel, parseRule } from "../src/lang/parser.js";
import { patternSynthesize } from "../src/synthesis/index.js";
import { FAMILIES } from "../src/synthesis/patterns/families.js";

/** Variations a description can ask for, composed with every family. */
const VARIATIONS: Array<[string, string]> = [
  ["plain", ""],
  ["arbiter", " Carol arbitrates any dispute."],
  ["deadline", " It must be done by June 1."],
  ["refund", " If it fails, the money is refunded."],
  ["all", " Carol arbitrates any dispute. It must be done by June 1, else a refund."],
];

describe("every family composes with every variation into a checked contract", () => {
  for (const family of FAMILIES) {
    for (const [name, extra] of VARIATIONS) {
      it(`${family.id} + ${name}`, () => {
        const r = patternSynthesize(`Alice and Bob make a deal.${extra}`, family.id);
        assert.ok(r, "no answer");
        assert.equal(r.patterns[0], family.id);
        assert.ok(r.confidence > 0 && r.confidence <= 1);
        const lts = compileModel(parseModel(r.model));
        assert.ok(r.rules.length >= 1);
        for (const rule of r.rules) assert.ok(checkAtInitial(lts, parseRule(rule).formula).holds, rule);
        assert.equal(
          r.warnings.some((w) => w.startsWith("dropped a rule")),
          false,
          r.warnings.join("\n"),
        );
        for (const p of r.parties) {
          assert.ok(r.protections[p], `no protection for ${p}`);
          assert.ok(
            r.model.includes(`/${p}.id`) || r.model.includes(`(/${p})`) || /\/(signers|committee)\)/.test(r.model),
            `${p} appears in no signature`,
          );
        }
        if (name === "arbiter" && family.roles.some((x) => x.role === "arbiter")) {
          assert.ok(r.model.includes("/users/carol.id"), "a named arbiter signs");
        }
      });
    }
  }

  it("keeps named people bound to their roles, whatever the order of the sentence", () => {
    for (const text of [
      "Alice buys a bike from Bob",
      "Bob sells a bike to Alice",
      "The buyer Alice pays the seller Bob",
    ]) {
      const r = patternSynthesize(text)!;
      assert.match(r.model, /\+DEPOSIT \+signed_by\(\/users\/alice\.id\)/, text);
      assert.match(r.model, /\+DELIVER \+signed_by\(\/users\/bob\.id\)/, text);
    }
    const loan = patternSynthesize("Mia borrows 300 from Ned and repays it by the end of the year")!;
    assert.match(loan.model, /\+LEND \+signed_by\(\/users\/ned\.id\)/);
    assert.match(loan.model, /\+REPAY \+signed_by\(\/users\/mia\.id\) \+before/);
  });

  it("reads any number of milestones and handoffs", () => {
    const m = patternSynthesize("Ann hires Ben to build a house in 7 milestones")!;
    assert.ok(m.model.includes("+PAY_M7"));
    assert.equal(m.model.includes("+PAY_M8"), false);
    const chain = patternSynthesize("A crate is handed from Ada to Bo to Cy to Di to Ed")!;
    assert.equal(chain.patterns[0], "supply_chain");
    assert.deepEqual(chain.parties, ["ada", "bo", "cy", "di", "ed"]);
    assert.ok(chain.model.includes("+RECEIVE_4 +signed_by(/users/ed.id)"));
  });

  it("warns when it guessed: weak cues, rival readings, names without a role, unenforced amounts", () => {
    const r = patternSynthesize("Alice pays Bob 40 dollars monthly for cleaning services")!;
    assert.ok(r.warnings.some((w) => w.includes("also reads as")));
    assert.ok(r.warnings.some((w) => w.includes("40 dollars")));
    const extra = patternSynthesize("Alice buys a bike from Bob, and Zed is a witness")!;
    assert.ok(extra.warnings.some((w) => w.includes("given no role: zed")));
  });
});
