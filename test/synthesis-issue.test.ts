import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { compileModel, type Lts } from "../src/lang/Lts.js";
import { parseModel } from "../src/lang/parser.js";
import type { SynthesisResult } from "../src/synthesis/index.js";
import { type TestApp, testApp } from "./support/testApps.js";

/** The signer names of every reachable transition carrying +ACTION. */
function signersOf(lts: Lts, action: string): string[] {
  const out = new Set<string>();
  for (const t of lts.transitions) {
    if (!t.label.some((p) => p.sign === "+" && p.name === action && p.args === null)) continue;
    for (const p of t.label) {
      const m = p.sign === "+" && p.name === "signed_by" ? /^\/users\/(\w+)\.id$/.exec(p.args?.[0] ?? "") : null;
      if (m) out.add(m[1]!);
    }
  }
  return [...out].sort();
}

const actions = (lts: Lts) =>
  new Set(lts.transitions.flatMap((t) => t.label.filter((p) => p.args === null).map((p) => p.name)));

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

/** Synthesizes over HTTP without a key, then creates the contract on the hub (which model-checks every rule). */
async function synthesizeAndCreate(body: Record<string, unknown>): Promise<{ r: SynthesisResult; lts: Lts }> {
  const res = await t.app.inject({ method: "POST", url: "/contracts/synthesize", payload: body });
  assert.equal(res.statusCode, 200, res.body);
  const r = JSON.parse(res.body) as SynthesisResult;
  assert.equal(r.source, "patterns");
  assert.ok(r.confidence > 0 && r.confidence <= 1);
  assert.ok(Array.isArray(r.warnings));
  await t.contract({ model: r.model, rules: r.rules });
  for (const p of r.parties) assert.ok(r.protections[p], `no protection for ${p}`);
  return { r, lts: compileModel(parseModel(r.model)) };
}

describe("the five descriptions of issue 21, without a key", () => {
  it("Alice pays Bob for a used bike, held until Alice confirms, Carol settles disputes", async () => {
    const { r, lts } = await synthesizeAndCreate({
      description:
        "Alice pays Bob 500 dollars for a used bike; the money is held until Alice confirms she got the bike, and Carol settles any dispute.",
    });
    assert.deepEqual(r.patterns.slice(0, 2), ["escrow", "arbiter"]);
    assert.deepEqual(r.parties, ["alice", "bob", "carol"]);
    assert.deepEqual(signersOf(lts, "DEPOSIT"), ["alice"]);
    assert.deepEqual(signersOf(lts, "DELIVER"), ["bob"]);
    assert.deepEqual(signersOf(lts, "RELEASE"), ["alice"]);
    assert.deepEqual(signersOf(lts, "REFUND"), ["carol"]);
    assert.deepEqual(signersOf(lts, "AWARD"), ["carol"]);
  });

  it("a 2-of-3 keyholder treasury", async () => {
    const { r } = await synthesizeAndCreate({ description: "A 2-of-3 keyholder treasury" });
    assert.equal(r.patterns[0], "multisig");
    assert.equal(r.parties.length, 3);
    assert.match(r.model, /\+EXECUTE \+threshold\(2, \/signers\)/);
  });

  it("a tenant/landlord deposit", async () => {
    const { r, lts } = await synthesizeAndCreate({
      description: "Tenant Tom pays landlord Lisa a deposit of 800 dollars, returned when he moves out.",
    });
    assert.equal(r.patterns[0], "deposit");
    assert.deepEqual(r.parties, ["tom", "lisa"]);
    assert.deepEqual(signersOf(lts, "PAY_DEPOSIT"), ["tom"]);
    assert.deepEqual(signersOf(lts, "RETURN"), ["lisa"]);
  });

  it('with pattern_hint "escrow", Tenant Tom and landlord Lisa keep their roles and the landlord is kept', async () => {
    const { r, lts } = await synthesizeAndCreate({
      description: "Tenant Tom pays landlord Lisa a deposit of 800 dollars, returned when he moves out.",
      pattern_hint: "escrow",
    });
    assert.deepEqual(r.parties, ["tom", "lisa"]);
    assert.equal(r.parties.includes("tenant"), false);
    assert.equal(actions(lts).has("DELIVER"), false, "the tenant is not made to deliver");
    assert.deepEqual(signersOf(lts, "PAY_DEPOSIT"), ["tom"]);
    assert.ok(r.warnings.some((w) => w.includes("deposit")));
  });

  it('"a rental deposit between tenant and landlord" is a deposit, and says the names are role words', async () => {
    const { r, lts } = await synthesizeAndCreate({ description: "a rental deposit between tenant and landlord" });
    assert.equal(r.patterns[0], "deposit");
    assert.deepEqual(r.parties, ["tenant", "landlord"]);
    assert.deepEqual(signersOf(lts, "PAY_DEPOSIT"), ["tenant"]);
    assert.ok(r.warnings.some((w) => w.includes("no name found for the tenant")));
  });

  it("answers 503 only when nothing fits, with the closest patterns in details", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/contracts/synthesize",
      payload: { description: "Write a haiku about the sea" },
    });
    assert.equal(res.statusCode, 503);
    const body = JSON.parse(res.body) as { code: string; details: { closest: Array<{ pattern: string }> } };
    assert.equal(body.code, "UNAVAILABLE");
    assert.equal(body.details.closest.length, 3);
  });
});
