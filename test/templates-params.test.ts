import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertContractError } from "../src/contract/assertContractError.js";
import { instantiateTemplate } from "../src/templates/index.js";
import { Party } from "./support/Party.js";

const buyer = new Party("buyer");
const seller = new Party("seller");
const arbiter = new Party("arbiter");

function invalid(id: string, params: unknown, param: string, reason: string): void {
  const details = assertContractError(() => instantiateTemplate(id, params), "INVALID_REQUEST", reason);
  assert.equal(details.param, param);
}

describe("instantiateTemplate", () => {
  it("writes the parties' keys at /users/<role>.id as plain hex, accepting either spelling", () => {
    const inst = instantiateTemplate(
      "escrow",
      { buyer: buyer.identity, seller: seller.key, amount: "250", item: "bike" },
      { owner: buyer.key },
    );
    assert.deepEqual(inst.state, {
      "/users/buyer.id": buyer.key,
      "/users/seller.id": seller.key,
      "/terms/amount.json": 250,
      "/terms/item.text": "bike",
    });
    assert.equal(inst.owner, buyer.identity);
    assert.ok(inst.rules.length > 0);
    // Without an arbiter there is no dispute path.
    assert.equal(inst.model.includes("DISPUTE"), false);
    const withArbiter = instantiateTemplate("escrow", { buyer: buyer.key, seller: seller.key, arbiter: arbiter.key });
    assert.equal(withArbiter.state["/users/arbiter.id"], arbiter.key);
    assert.ok(withArbiter.model.includes("+DISPUTE"));
    assert.equal("owner" in withArbiter, false);
  });

  it("fills defaults, typed paths and the multisig threshold", () => {
    const keys = [new Party("a"), new Party("b"), new Party("c")].map((p) => p.identity);
    const ms = instantiateTemplate("multisig", { signers: keys, threshold: 3 });
    assert.deepEqual(Object.keys(ms.state), [
      "/signers/signer_1.id",
      "/signers/signer_2.id",
      "/signers/signer_3.id",
      "/terms/threshold.json",
    ]);
    assert.match(ms.model, /\+threshold\(3, \/signers\)/);
    assert.match(instantiateTemplate("multisig", { signers: keys }).model, /\+threshold\(2, \/signers\)/);
    const sub = instantiateTemplate("subscription", {
      provider: seller.key,
      subscriber: buyer.key,
      paid_until: "2030-01-01T00:00:00Z",
    });
    assert.equal(sub.state["/terms/paid_until.datetime"], "2030-01-01T00:00:00Z");
    assert.equal(sub.state["/terms/period_days.json"], 30);
    const mil = instantiateTemplate("milestone", { client: buyer.key, contractor: seller.key, milestones: 4 });
    assert.ok(mil.model.includes("+PAY_M4"));
    assert.equal(mil.model.includes("+PAY_M5"), false);
  });

  it("names the missing, unknown or malformed parameter", () => {
    invalid("escrow", { seller: seller.key }, "buyer", "param_missing");
    invalid("escrow", { buyer: "abc", seller: seller.key }, "buyer", "param_invalid");
    invalid("escrow", { buyer: buyer.key.toUpperCase(), seller: seller.key }, "buyer", "param_invalid");
    invalid("escrow", { buyer: `rsa:${buyer.key}`, seller: seller.key }, "buyer", "param_invalid");
    invalid("escrow", { buyer: buyer.key, seller: seller.key, judge: arbiter.key }, "judge", "param_unknown");
    invalid("escrow", { buyer: buyer.key, seller: seller.key, amount: 0 }, "amount", "param_out_of_range");
    invalid("escrow", { buyer: buyer.key, seller: seller.key, amount: 1.5 }, "amount", "param_invalid");
    invalid("escrow", { buyer: buyer.key, seller: seller.key, item: 7 }, "item", "param_invalid");
    invalid("escrow", [buyer.key], "params", "params_not_object");
    const swap = { party_a: buyer.key, party_b: seller.key };
    invalid("atomic_swap", swap, "deadline", "param_missing");
    invalid("atomic_swap", { ...swap, deadline: "2030-02-30T00:00:00Z" }, "deadline", "param_invalid");
    invalid("atomic_swap", { ...swap, deadline: "2030-01-01T00:00:00" }, "deadline", "param_invalid");
  });

  it("refuses one key in two roles, a weak key, and a threshold above the signer count", () => {
    invalid("escrow", { buyer: buyer.key, seller: buyer.identity }, "seller", "param_duplicate_key");
    invalid("multisig", { signers: [buyer.key, seller.key, buyer.key] }, "signers", "param_duplicate_key");
    invalid("escrow", { buyer: "00".repeat(32), seller: seller.key }, "buyer", "weak_key");
    invalid("multisig", { signers: [buyer.key, seller.key], threshold: 3 }, "threshold", "param_out_of_range");
    invalid("multisig", { signers: [] }, "signers", "param_out_of_range");
    invalid("multisig", { signers: "not-a-list-of-keys" }, "signers", "param_invalid");
  });

  it("answers NOT_FOUND for an unknown template", () => {
    assertContractError(() => instantiateTemplate("lease", {}), "NOT_FOUND", "template_not_found");
  });
});
