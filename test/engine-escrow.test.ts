import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { stateView } from "../src/contract/engine.js";
import { ContractDriver, op } from "./support/ContractDriver.js";
import { candidatesOf, failedOn } from "./support/engineAsserts.js";
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

describe("escrow: operations that need the model's explicit consent", () => {
  it("rejects a MODEL or RULE operation on a transition that does not name it (needs_label)", async () => {
    const { d, buyer, seller } = await escrow();
    await d.commit([op.action("DEPOSIT")], [buyer]);
    await d.commit([op.action("DELIVER")], [seller]);
    await d.commit([op.action("RELEASE")], [buyer]);
    // released -> released [] is enabled for anything but sensitive operations.
    await d.commit([op.post("/notes/after.text", "fine")]);
    let details = await assertContractErrorAsync(
      () => d.commit([op.model(ESCROW)], [buyer]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(failedOn(details, "released", "released"), [["needs_label", "+MODEL"]]);
    details = await assertContractErrorAsync(
      () => d.commit([op.rule("/rules/r.modality", "true")], [buyer]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(failedOn(details, "released", "released"), [["needs_label", "+RULE"]]);
  });

  it("rejects overwriting an .id value or posting under /_code/ without +modifies (needs_modifies)", async () => {
    const { d, buyer, seller } = await escrow();
    const intruder = new Party("intruder");
    await d.commit([op.action("DEPOSIT")], [buyer]);
    await d.commit([op.action("DELIVER")], [seller]);
    await d.commit([op.action("RELEASE")], [buyer]);
    let details = await assertContractErrorAsync(
      () => d.commit([op.post("/users/buyer.id", intruder.key)]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(failedOn(details, "released", "released"), [["needs_modifies", "+modifies(/users/buyer.id)"]]);
    details = await assertContractErrorAsync(
      () => d.commit([op.post("/_code/custom/p.wasm", "AGFzbQEAAAA=")]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(failedOn(details, "released", "released"), [
      ["needs_modifies", "+modifies(/_code/custom/p.wasm)"],
    ]);
    // Re-posting the same key is not an overwrite; a new .id path is not one either.
    await d.commit([op.post("/users/buyer.id", buyer.key), op.post("/users/intruder.id", intruder.key)]);
    assert.equal(d.state.data.get("/users/buyer.id"), buyer.key);
  });

  it("accepts an .id overwrite on a transition carrying +modifies of a covering directory", async () => {
    const { d, buyer } = await escrow(
      ESCROW.replace(
        "initial init",
        "initial init\n  init -> init [+ROTATE +modifies(/users) +signed_by(/users/buyer.id)]",
      ),
    );
    const next = new Party("buyer");
    await d.commit([op.post("/users/buyer.id", next.key), op.action("ROTATE")], [buyer]);
    assert.equal(d.state.data.get("/users/buyer.id"), next.key);
    // The old key no longer counts as the buyer.
    await assertContractErrorAsync(
      () => d.commit([op.action("DEPOSIT")], [{ key: buyer.seed, as: `ed25519:${buyer.key}` }]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    await d.commit([op.action("DEPOSIT")], [next]);
    assert.equal(d.state.currentStateName, "deposited");
  });

  it("rejects posts under /model/, /rules/ and /reposts/ whatever the model says", async () => {
    const { d } = await escrow(ESCROW.replace("initial init", "initial init\n  init -> init []"));
    for (const path of ["/model/default.modality", "/rules/r.modality", "/reposts/x/y.text"]) {
      const details = await assertContractErrorAsync(
        () => d.commit([op.post(path, "true")]),
        "VALIDATION_FAILED",
        "reserved_path",
      );
      assert.equal(details.path, path);
    }
    assert.equal(d.state.length, 1);
  });

  it("rejects a commit whose hash does not match its content", async () => {
    const { d, buyer } = await escrow();
    const good = d.build([op.action("DEPOSIT")], [buyer]);
    const tampered = { ...good, data: [op.post("/notes/x.text", "y"), op.action("DEPOSIT")] };
    const details = await assertContractErrorAsync(() => d.append(tampered), "VALIDATION_FAILED", "hash_mismatch");
    assert.equal(details.actual, good.hash);
    assert.notEqual(details.expected, good.hash);
    assert.equal(d.state.length, 1);
  });

  it("rejects a DISPUTE from the seller but accepts the arbiter's resolution path", async () => {
    const { d, buyer, seller, arbiter } = await escrow();
    await d.commit([op.action("DEPOSIT")], [buyer]);
    const details = await assertContractErrorAsync(
      () => d.commit([op.action("DISPUTE")], [seller]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(failedOn(details, "deposited", "disputed"), [["missing", "+signed_by(/users/buyer.id)"]]);
    // Ranked by number of failed properties.
    const counts = candidatesOf(details).map((c) => c.failed.length);
    assert.deepEqual(
      counts,
      [...counts].sort((a, b) => a - b),
    );
    assert.equal(counts.length, 2);
    await d.commit([op.action("DISPUTE")], [buyer]);
    await assertContractErrorAsync(
      () => d.commit([op.action("RESOLVE")], [buyer]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    await d.commit([op.action("RESOLVE")], [arbiter]);
    assert.equal(d.state.currentStateName, "released");
  });
});
