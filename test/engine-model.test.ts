/**
 * Model replacement and rules (LANGUAGE.md §4): replacement by replay, anchored rules,
 * hash anchors, rules of a contract without a model, valid_actions and nondeterminism.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { replayLog, stateView } from "../src/contract/engine.js";
import { ContractDriver, op } from "./support/ContractDriver.js";
import { candidatesOf, failedOn } from "./support/engineAsserts.js";
import { RELEASE_REACHABLE, V1, V2_GOOD } from "./support/escrowModels.js";
import { Party } from "./support/Party.js";

// Cannot replay the DEPOSIT commit: the deposit now needs the seller's signature.
const V2_NO_REPLAY = V1.replace(
  "init -> deposited [+DEPOSIT +signed_by(/users/buyer.id)]",
  "init -> deposited [+DEPOSIT +signed_by(/users/seller.id)]",
);
// Replays, but adds a trap state from which release is unreachable.
const V2_TRAP = V1.replace(
  "released -> released []",
  "deposited -> stuck [+STALL]\n  stuck -> stuck []\n  released -> released []",
);
// Replays the history but has no transition for the MODEL commit itself.
const V2_NO_MODEL_EDGE = V1.replace(
  "deposited -> deposited [+MODEL +signed_by(/users/buyer.id) +signed_by(/users/seller.id)]",
  "",
);

async function escrow(model: string | null = V1, rules: string[] = []) {
  const buyer = new Party("buyer");
  const seller = new Party("seller");
  const d = await ContractDriver.create("model1", {
    model,
    rules,
    owner: buyer.identity,
    state: { "/users/buyer.id": buyer.key, "/users/seller.id": seller.key },
  });
  return { d, buyer, seller };
}

async function deposited() {
  const e = await escrow();
  await e.d.commit([op.action("DEPOSIT")], [e.buyer]);
  await e.d.commit([op.rule("/rules/release.modality", RELEASE_REACHABLE)], [e.buyer]);
  return e;
}

describe("model replacement", () => {
  it("accepts a model that replays history and keeps the rules; later commits follow it", async () => {
    const { d, buyer, seller } = await deposited();
    await assertContractErrorAsync(
      () => d.commit([op.action("REFUND")], [seller]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    const stored = await d.commit([op.model(V2_GOOD)], [buyer, seller]);
    assert.equal(stored.index, 3);
    assert.equal(d.state.model?.text, V2_GOOD);
    assert.deepEqual(d.state.currentStateNames, ["deposited"]);
    await d.commit([op.action("REFUND")], [seller]);
    assert.equal(stateView(d.state).current_state, "refunded");
  });

  it("the current model must authorize its own replacement (+MODEL, signed as it says)", async () => {
    const { d, buyer } = await deposited();
    const details = await assertContractErrorAsync(
      () => d.commit([op.model(V2_GOOD)], [buyer]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    const modelEdge = candidatesOf(details).find((c) => c.label.startsWith("+MODEL"));
    assert.deepEqual(modelEdge?.failed, [{ property: "+signed_by(/users/seller.id)", kind: "missing" }]);
    assert.equal(d.state.model?.text, V1);
    // From init the old model has no +MODEL transition at all.
    const fresh = await escrow();
    const d2 = await assertContractErrorAsync(
      () => fresh.d.commit([op.model(V2_GOOD)], [fresh.buyer, fresh.seller]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(
      failedOn(d2, "init", "deposited").filter(([kind]) => kind === "needs_label"),
      [["needs_label", "+MODEL"]],
    );
  });

  it("rejects a model that cannot replay history, naming the commit (model_replay)", async () => {
    const { d, buyer, seller } = await deposited();
    const details = await assertContractErrorAsync(
      () => d.commit([op.model(V2_NO_REPLAY)], [buyer, seller]),
      "VALIDATION_FAILED",
      "model_replay",
    );
    assert.equal(details.index, 1);
    assert.equal(details.hash, d.log[1]!.hash);
    assert.deepEqual(details.current_states, ["init"]);
    assert.deepEqual(failedOn(details, "init", "deposited"), [["missing", "+signed_by(/users/seller.id)"]]);
    assert.equal(d.state.model?.text, V1);
  });

  it("rejects a model without a transition for the MODEL commit itself (model_replay at its index)", async () => {
    const { d, buyer, seller } = await deposited();
    const details = await assertContractErrorAsync(
      () => d.commit([op.model(V2_NO_MODEL_EDGE)], [buyer, seller]),
      "VALIDATION_FAILED",
      "model_replay",
    );
    assert.equal(details.index, 3);
  });

  it("rejects a model that breaks an accumulated rule at its anchor (rule_violated)", async () => {
    const { d, buyer, seller } = await deposited();
    const details = await assertContractErrorAsync(
      () => d.commit([op.model(V2_TRAP)], [buyer, seller]),
      "VALIDATION_FAILED",
      "rule_violated",
    );
    assert.equal(details.rule, "/rules/release.modality");
    assert.equal(details.anchor_state, "deposited");
    const cex = details.counterexample as { state: string; path: string[] };
    assert.ok(cex.path.includes("stuck") || cex.state === "stuck", JSON.stringify(cex));
    assert.equal(d.state.model?.text, V1);
  });

  it("checks genesis rules against a replacement too", async () => {
    const { d, buyer, seller } = await escrow(V1, [RELEASE_REACHABLE]);
    await d.commit([op.action("DEPOSIT")], [buyer]);
    const details = await assertContractErrorAsync(
      () => d.commit([op.model(V2_TRAP)], [buyer, seller]),
      "VALIDATION_FAILED",
      "rule_violated",
    );
    assert.equal(details.anchor_state, "init");
    assert.equal(details.rule, "rule release");
  });
});

describe("rules", () => {
  it("rejects an unsatisfiable rule and one violated at its anchor when committed", async () => {
    const { d, buyer } = await deposited();
    let details = await assertContractErrorAsync(
      () => d.commit([op.rule("/rules/no.modality", "false")], [buyer]),
      "VALIDATION_FAILED",
      "rule_violated",
    );
    assert.equal(details.rule, "/rules/no.modality");
    details = await assertContractErrorAsync(
      () => d.commit([op.rule("/rules/init.modality", "init")], [buyer]),
      "VALIDATION_FAILED",
      "rule_violated",
    );
    assert.equal(details.anchor_state, "deposited");
    assert.equal(d.state.rules.length, 1);
  });

  it("rejects a formula the checker refuses, e.g. a non-monotone fixed point (rule_invalid)", async () => {
    const { d, buyer } = await deposited();
    await assertContractErrorAsync(
      () => d.commit([op.rule("/rules/bad.modality", "lfp(X, !X)")], [buyer]),
      "VALIDATION_FAILED",
      "rule_invalid",
    );
  });

  it("refuses a formula the checker refuses even without a model (genesis and RULE), so no model is blocked later", async () => {
    const buyer = new Party("buyer");
    const genesis = { model: null, owner: buyer.identity, state: { "/users/buyer.id": buyer.key } };
    await assertContractErrorAsync(
      () => ContractDriver.create("nomodel1", { ...genesis, rules: ["lfp(X, !X)"] }),
      "VALIDATION_FAILED",
      "rule_invalid",
    );
    const d = await ContractDriver.create("nomodel2", { ...genesis, rules: [] });
    for (const formula of ["gfp(Y, <> !Y)", '<+signed_by("a b")> true', '[<+post_to("x.text", v)>] true']) {
      const details = await assertContractErrorAsync(
        () => d.commit([op.rule("/rules/bad.modality", formula)], [buyer]),
        "VALIDATION_FAILED",
        "rule_invalid",
      );
      assert.equal(details.rule, "/rules/bad.modality");
    }
    assert.equal(d.state.rules.length, 0);
    await d.commit([op.model("model m { a -> a [+MODEL] }")], [buyer]);
  });

  it("refuses a creation rule anchored at a commit hash: no commit comes before the genesis", async () => {
    const buyer = new Party("buyer");
    const anchored = `rule r { starting_at ${"ab".repeat(32)} formula { true } }`;
    const genesis = { model: "model m { a -> a [] }", owner: buyer.identity, rules: [anchored] };
    const details = await assertContractErrorAsync(
      () => ContractDriver.create("anchored1", genesis),
      "VALIDATION_FAILED",
      "unknown_anchor",
    );
    assert.equal(details.anchor, "ab".repeat(32));
  });

  it("admission checks of new rules do not apply to a trusted replay of what the hub stored before them", async () => {
    const buyer = new Party("buyer");
    // As a store written before these checks could hold: created under the trusted flag, which skips them.
    const old = await ContractDriver.create(
      "stored-before",
      {
        model: null,
        owner: buyer.identity,
        rules: ["lfp(X, !X)", `rule r { starting_at ${"cd".repeat(32)} formula { true } }`],
      },
      { trusted: true },
    );
    const replayed = await replayLog("stored-before", old.log, { trusted: true });
    assert.equal(replayed.rules.length, 2);
    // An untrusted replay (verify, a cloned working copy) holds the log to today's rules.
    await assert.rejects(replayLog("stored-before", old.log, { trusted: false }));
  });

  it("checks a hash-anchored rule at that commit's states", async () => {
    const { d, buyer } = await deposited();
    const genesis = d.log[0]!.hash;
    // `init` held right after genesis, not now.
    await d.commit(
      [op.rule("/rules/was_init.modality", `rule r { starting_at ${genesis} formula { init } }`)],
      [buyer],
    );
    const rule = d.state.rules.at(-1)!;
    assert.equal(rule.anchorIndex, 0);
    // Anchored at the DEPOSIT commit, `init` does not hold.
    const details = await assertContractErrorAsync(
      () =>
        d.commit(
          [op.rule("/rules/at_deposit.modality", `rule r { starting_at ${d.log[1]!.hash} formula { init } }`)],
          [buyer],
        ),
      "VALIDATION_FAILED",
      "rule_violated",
    );
    assert.equal(details.anchor_state, "deposited");
  });

  it("rejects an anchor hash that is not an earlier commit (unknown_anchor)", async () => {
    const { d, buyer } = await deposited();
    const unknown = "ab".repeat(32);
    const details = await assertContractErrorAsync(
      () => d.commit([op.rule("/rules/x.modality", `rule r { starting_at ${unknown} formula { true } }`)], [buyer]),
      "VALIDATION_FAILED",
      "unknown_anchor",
    );
    assert.equal(details.anchor, unknown);
  });

  it("a replacement recomputes a hash-anchored rule's anchor states in the new model", async () => {
    const { d, buyer, seller } = await deposited();
    const genesis = d.log[0]!.hash;
    await d.commit(
      [op.rule("/rules/was_init.modality", `rule r { starting_at ${genesis} formula { init } }`)],
      [buyer],
    );
    // Renaming `init` keeps replay possible but the anchored rule no longer holds.
    const renamed = V2_GOOD.replace(/\binit\b/g, "start");
    const details = await assertContractErrorAsync(
      () => d.commit([op.model(renamed)], [buyer, seller]),
      "VALIDATION_FAILED",
      "rule_violated",
    );
    assert.equal(details.rule, "/rules/was_init.modality");
    assert.equal(details.anchor_state, "start");
    await d.commit([op.model(V2_GOOD)], [buyer, seller]);
  });

  it("rules added to a contract without a model are checked when the first model arrives", async () => {
    const { d, buyer, seller } = await escrow(null);
    await d.commit([op.rule("/rules/release.modality", RELEASE_REACHABLE)], [buyer]);
    await d.commit([op.post("/notes/a.text", "hello")]);
    assert.deepEqual(stateView(d.state).current_states, []);
    assert.equal(stateView(d.state).current_state, "");
    const first = `model Escrow {
      initial init
      init -> init [+RULE]
      init -> init [+POST]
      init -> init [+MODEL +signed_by(/users/buyer.id)]
      init -> released [+RELEASE +signed_by(/users/buyer.id)]
      released -> released []
    }`;
    const trap = first.replace(
      "released -> released []",
      "init -> stuck [+STALL]\n      stuck -> stuck []\n      released -> released []",
    );
    let details = await assertContractErrorAsync(
      () => d.commit([op.model(trap)], [buyer]),
      "VALIDATION_FAILED",
      "rule_violated",
    );
    assert.equal(details.rule, "/rules/release.modality");
    // A first model must replay the commits made before it.
    details = await assertContractErrorAsync(
      () => d.commit([op.model(first.replace("init -> init [+POST]", ""))], [buyer]),
      "VALIDATION_FAILED",
      "model_replay",
    );
    assert.equal(details.index, 2);
    await d.commit([op.model(first)], [seller, buyer]);
    assert.equal(stateView(d.state).current_state, "init");
    await d.commit([op.action("RELEASE")], [buyer]);
    assert.equal(stateView(d.state).current_state, "released");
  });
});

describe("valid_actions and nondeterminism", () => {
  const ND = `model Nd {
    initial a
    a -> b [+GO +signed_by(/users/x.id)]
    a -> c [+GO]
    a -> d [+PAY +threshold(2, /signers) +signed_by(/users/x.id)]
    a -> e [+MODEL +all_signed(/signers)]
    b -> b [+POST]
    c -> a [+BACK +any_signed(/signers)]
    d -> d []
    e -> e []
  }`;

  async function nd() {
    const x = new Party("x");
    const [s1, s2] = [new Party("s1"), new Party("s2")];
    const d = await ContractDriver.create("nd1", {
      model: ND,
      rules: [],
      owner: x.identity,
      state: { "/users/x.id": x.key, "/signers/s1.id": s1.key, "/signers/s2.id": s2.key },
    });
    return { d, x, s1 };
  }

  it("lists one action per leaving transition with signers, threshold directories and targets", async () => {
    const { d } = await nd();
    assert.deepEqual(stateView(d.state).valid_actions, [
      {
        action: "GO",
        required_signer: "/users/x.id",
        required_signers: ["/users/x.id"],
        to: "b",
        label: "+GO +signed_by(/users/x.id)",
      },
      { action: "GO", required_signer: "", required_signers: [], to: "c", label: "+GO" },
      {
        action: "PAY",
        required_signer: "/users/x.id",
        required_signers: ["/signers", "/users/x.id"],
        to: "d",
        label: "+PAY +threshold(2, /signers) +signed_by(/users/x.id)",
      },
      {
        action: "MODEL",
        required_signer: "",
        required_signers: ["/signers"],
        to: "e",
        label: "+MODEL +all_signed(/signers)",
      },
    ]);
  });

  it("takes every enabled transition: two targets give current_states [b, c] and current_state b|c", async () => {
    const { d, x, s1 } = await nd();
    await d.commit([op.action("GO")], [x]);
    let view = stateView(d.state);
    assert.deepEqual(view.current_states, ["b", "c"]);
    assert.equal(view.current_state, "b|c");
    assert.deepEqual(
      view.valid_actions.map((a) => [a.action, a.to]),
      [
        ["POST", "b"],
        ["BACK", "a"],
      ],
    );
    // A commit enabled only from c narrows the set.
    await d.commit([op.action("BACK")], [{ key: s1.seed, as: "/signers/s1.id" }]);
    view = stateView(d.state);
    assert.deepEqual(view.current_states, ["a"]);
    // Unsigned GO only enables a -> c.
    await d.commit([op.action("GO")]);
    assert.equal(stateView(d.state).current_state, "c");
  });

  it("a rejection from several current states lists candidates from each", async () => {
    const { d, x } = await nd();
    await d.commit([op.action("GO")], [x]);
    const details = await assertContractErrorAsync(
      () => d.commit([op.action("PAY")], [x]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(details.current_states, ["b", "c"]);
    assert.deepEqual(
      candidatesOf(details)
        .map((c) => `${c.from}->${c.to}`)
        .sort(),
      ["b->b", "c->a"],
    );
  });
});
