import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { stateView } from "../src/contract/engine.js";
import { ContractDriver, op } from "./support/ContractDriver.js";
import { Party } from "./support/Party.js";

const ESCROW = `model Escrow {
  initial init
  init -> deposited [+DEPOSIT +signed_by(/users/buyer.id)]
  deposited -> delivered [+DELIVER +signed_by(/users/seller.id)]
  delivered -> released [+RELEASE +signed_by(/users/buyer.id)]
  deposited -> disputed [+DISPUTE +signed_by(/users/buyer.id)]
  disputed -> released [+RESOLVE +signed_by(/users/arbiter.id)]
  released -> released []
}`;
// Under LANGUAGE.md §3 label matching, a transition that does not mention RELEASE also matches
// [+RELEASE], so protective rules must be stated over signers, not action labels alone.
const RELEASE_REACHABLE = "export default rule { starting_at $PARENT formula { always(eventually(released)) } }";

async function escrow(model = ESCROW) {
  const buyer = new Party("buyer");
  const seller = new Party("seller");
  const arbiter = new Party("arbiter");
  const d = await ContractDriver.create("escrow1", {
    model,
    rules: [],
    owner: buyer.identity,
    state: { "/users/buyer.id": buyer.key, "/users/seller.id": seller.key, "/users/arbiter.id": arbiter.key },
  });
  return { d, buyer, seller, arbiter };
}

describe("escrow at the engine level", () => {
  it("walks the happy path and reports valid actions", async () => {
    const { d, buyer, seller } = await escrow();
    let view = stateView(d.state);
    assert.equal(view.current_state, "init");
    assert.deepEqual(
      view.valid_actions.map((a) => [a.action, a.required_signer, a.to]),
      [["DEPOSIT", "/users/buyer.id", "deposited"]],
    );
    await d.commit([op.action("DEPOSIT")], [buyer]);
    await d.commit([op.post("/notes/tracking.text", "TRACK-1"), op.action("DELIVER")], [seller]);
    const last = await d.commit([op.action("RELEASE")], [buyer]);
    view = stateView(d.state);
    assert.equal(view.current_state, "released");
    assert.equal(view.commit_count, 4);
    assert.equal(view.head, last.hash);
    assert.deepEqual(last.signers, [buyer.key]);
    assert.equal(d.state.data.get("/notes/tracking.text"), "TRACK-1");
  });

  it("rejects a commit signed by the wrong party, explaining the candidates", async () => {
    const { d, seller } = await escrow();
    const details = await assertContractErrorAsync(
      () => d.commit([op.action("DEPOSIT")], [seller]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(details.current_states, ["init"]);
    const [candidate] = details.candidates as Array<{ to: string; failed: Array<{ property: string; kind: string }> }>;
    assert.equal(candidate!.to, "deposited");
    assert.deepEqual(candidate!.failed, [{ property: "+signed_by(/users/buyer.id)", kind: "missing" }]);
  });

  it("rejects a bad signature and an unknown signer path", async () => {
    const { d, buyer, seller } = await escrow();
    const forged = d.build([op.action("DEPOSIT")], [{ key: seller.seed, as: "/users/buyer.id" }]);
    await assertContractErrorAsync(() => d.append(forged), "VALIDATION_FAILED", "bad_signature");
    const unknown = d.build([op.action("DEPOSIT")], [{ key: buyer.seed, as: "/users/nobody.id" }]);
    await assertContractErrorAsync(() => d.append(unknown), "VALIDATION_FAILED", "signer_unknown");
  });

  it("rejects a stale parent with the head in details", async () => {
    const { d, buyer } = await escrow();
    const stale = d.build([op.action("DEPOSIT")], [buyer]);
    await d.commit([op.post("/notes/a.text", "x"), op.action("DEPOSIT")], [buyer]);
    const details = await assertContractErrorAsync(() => d.append(stale), "CONFLICT", "stale_parent");
    assert.equal(details.head, d.state.head);
  });

  it("accepts a rule that holds and rejects one that does not, with a counterexample", async () => {
    const { d, buyer } = await escrow(
      ESCROW.replace("initial init", "initial init\n  init -> init [+RULE +signed_by(/users/buyer.id)]"),
    );
    await assertContractErrorAsync(
      () => d.commit([op.rule("/rules/release.modality", RELEASE_REACHABLE)]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    await d.commit([op.rule("/rules/release.modality", RELEASE_REACHABLE)], [buyer]);
    assert.equal(d.state.rules.length, 1);
    const details = await assertContractErrorAsync(
      () => d.commit([op.rule("/rules/never.modality", "always(init)")], [buyer]),
      "VALIDATION_FAILED",
      "rule_violated",
    );
    assert.equal(details.rule, "/rules/never.modality");
    assert.equal(details.anchor_state, "init");
  });
});
