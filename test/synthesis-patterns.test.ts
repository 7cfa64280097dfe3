import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkAtInitial } from "../src/lang/check.js";
import { compileModel } from "../src/lang/Lts.js";
import { parseModel, parseRule } from "../src/lang/parser.js";
import { patternSynthesize } from "../src/synthesis/index.js";

function synth(description: string, hint?: string) {
  const r = patternSynthesize(description, hint);
  assert.ok(r, `not recognised: ${description}`);
  return r;
}

describe("pattern synthesizer", () => {
  const cases: Array<[string, string | undefined, string, string[]]> = [
    ["Alice buys a bike from Bob", undefined, "escrow", ["alice", "bob"]],
    ["Bob sells his bike to Alice", undefined, "escrow", ["alice", "bob"]],
    [
      "Carol sells her car to Dave; Erin acts as arbiter if they disagree.",
      undefined,
      "escrow",
      ["dave", "carol", "erin"],
    ],
    ["An escrow between a buyer and a seller", undefined, "escrow", ["buyer", "seller"]],
    ["Alice and Bob swap 10 ETH for 500 DOT", undefined, "swap", ["alice", "bob"]],
    ["A 2-of-3 multisig wallet for Alice, Bob and Carol", undefined, "multisig", ["alice", "bob", "carol"]],
    ["Alice hires Bob to build a website in three milestones", undefined, "milestone", ["alice", "bob"]],
    ["Dana subscribes to Eve's newsletter every month", undefined, "subscription", ["eve", "dana"]],
    ["Bob provides consulting services to Alice", undefined, "service_agreement", ["alice", "bob"]],
    ["Ivan and Judy make a deal", "swap", "swap", ["ivan", "judy"]],
  ];
  for (const [description, hint, template, parties] of cases) {
    it(`${description}${hint ? ` (hint ${hint})` : ""} → ${template} ${parties.join(", ")}`, () => {
      const r = synth(description, hint);
      assert.equal(r.source, "patterns");
      assert.equal(r.patterns[0], template);
      assert.deepEqual(r.parties, parties);
      const lts = compileModel(parseModel(r.model));
      assert.ok(r.rules.length >= 2);
      for (const rule of r.rules) assert.ok(checkAtInitial(lts, parseRule(rule).formula).holds, rule);
      for (const p of parties) assert.ok(p in r.protections, `no protection for ${p}`);
      assert.ok(r.prompt.length > 0);
    });
  }

  it("names parties in the model's signer paths", () => {
    const r = synth("Alice buys a bike from Bob");
    assert.match(r.model, /init -> deposited \[\+DEPOSIT \+signed_by\(\/users\/alice\.id\)\]/);
    assert.match(r.model, /\+RELEASE \+signed_by\(\/users\/alice\.id\)/);
    assert.match(r.model, /\+DELIVER \+signed_by\(\/users\/bob\.id\)/);
    assert.equal(r.model.includes("DISPUTE"), false);
    assert.ok(synth("Alice buys a bike from Bob; Carol mediates disputes").model.includes("/users/carol.id"));
  });

  it("reads counts: milestones and the multisig quorum", () => {
    assert.ok(synth("Alice hires Bob for a job in 4 phases").model.includes("+PAY_M4"));
    assert.match(synth("The board treasury needs 3 of 5 directors to approve").model, /\+threshold\(3, \/signers\)/);
    assert.match(
      synth("Alice and Bob co-sign payments; both signatures are required").model,
      /\+threshold\(2, \/signers\)/,
    );
  });

  it("is deterministic and lets the hint override the keywords", () => {
    assert.deepEqual(synth("Alice buys a bike from Bob"), synth("Alice buys a bike from Bob"));
    assert.equal(synth("Alice buys a bike from Bob", "milestone").patterns[0], "milestone");
  });

  it("does not recognise unrelated text", () => {
    assert.equal(patternSynthesize("Write a haiku about the sea"), null);
    assert.equal(patternSynthesize("Write a haiku about the sea", "poem"), null);
  });
});
