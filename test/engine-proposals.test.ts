import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { signAttestation } from "../src/contract/attestation.js";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import { decideProposal, proposalCountable } from "../src/contract/engine.js";
import { ContractDriver, op } from "./support/ContractDriver.js";
import { Party } from "./support/Party.js";

const ESCROW = `model Escrow {
  initial init
  init -> deposited [+DEPOSIT +signed_by(/users/buyer.id)]
  deposited -> cancelled [+CANCEL +signed_by(/users/buyer.id) +signed_by(/users/seller.id)]
  deposited -> cancelled [+CANCEL +signed_by(/users/arbiter.id)]
  deposited -> delivered [+DELIVER +signed_by(/users/seller.id) -signed_by(/users/buyer.id)]
  cancelled -> cancelled []
  delivered -> delivered []
}`;

const TREASURY = `model Treasury {
  initial idle
  idle -> idle [+EXECUTE +threshold(2, /signers)]
  idle -> idle [+SWEEP +all_signed(/signers)]
  idle -> idle [+PING +any_signed(/signers)]
  idle -> idle [+LIST +threshold(3, /board.json)]
}`;

async function escrow() {
  const [buyer, seller, arbiter] = [new Party("buyer"), new Party("seller"), new Party("arbiter")];
  const d = await ContractDriver.create("p1", {
    model: ESCROW,
    rules: [],
    owner: buyer.identity,
    state: { "/users/buyer.id": buyer.key, "/users/seller.id": seller.key, "/users/arbiter.id": arbiter.key },
  });
  await d.commit([op.action("DEPOSIT")], [buyer]);
  return { d, buyer, seller, arbiter };
}

async function treasury(n: number) {
  const parties = Array.from({ length: n }, (_, i) => new Party(`s${i}`));
  const state: Record<string, unknown> = { "/board.json": parties.map((p) => p.key) };
  parties.forEach((p, i) => {
    state[`/signers/s${i}.id`] = p.key;
  });
  const d = await ContractDriver.create("t1", { model: TREASURY, rules: [], owner: parties[0]!.identity, state });
  return { d, parties };
}

const signedAs = (p: Party, path = `/users/${p.name}.id`) => ({ key: p.seed, as: path });

describe("proposals at the engine level", () => {
  it("counts a commit lacking only signatures as satisfiable and names the cheapest transition's missing signer", async () => {
    const { d, buyer } = await escrow();
    const decision = await decideProposal(d.state, d.build([op.action("CANCEL")], [buyer]), d.context());
    assert.equal(decision.complete, false);
    assert.ok(!decision.complete);
    assert.deepEqual(decision.signers, [buyer.key]);
    // The arbiter-only CANCEL also needs one signature, but the two-party one comes first in the model.
    assert.deepEqual(decision.missing, [
      { predicate: "+signed_by(/users/seller.id)", signers: ["/users/seller.id"], needed: 1 },
    ]);
  });

  it("prefers the transition needing fewer signatures over model order", async () => {
    const { d } = await escrow();
    const decision = await decideProposal(d.state, d.build([op.action("CANCEL")]), d.context());
    assert.ok(!decision.complete);
    assert.deepEqual(decision.missing, [
      { predicate: "+signed_by(/users/arbiter.id)", signers: ["/users/arbiter.id"], needed: 1 },
    ]);
  });

  it("is complete when every predicate holds", async () => {
    const { d, buyer, seller } = await escrow();
    const decision = await decideProposal(d.state, d.build([op.action("CANCEL")], [buyer, seller]), d.context());
    assert.ok(decision.complete);
    assert.deepEqual(new Set(decision.stored.signers), new Set([buyer.key, seller.key]));
    assert.equal(decision.delta.current.length, 1);
  });

  it("refuses what signatures cannot fix: no such transition, a forbidden signer, a bad signature, a stale parent", async () => {
    const { d, buyer, seller } = await escrow();
    await assertContractErrorAsync(
      () => decideProposal(d.state, d.build([op.action("RELEASE")]), d.context()),
      "VALIDATION_FAILED",
      "no_transition",
    );
    // DELIVER forbids the buyer's signature: adding others cannot help.
    await assertContractErrorAsync(
      () => decideProposal(d.state, d.build([op.action("DELIVER")], [buyer]), d.context()),
      "VALIDATION_FAILED",
      "no_transition",
    );
    const forged = d.build([op.action("CANCEL")], [signedAs(seller, "/users/buyer.id")]);
    const details = await assertContractErrorAsync(
      () => decideProposal(d.state, forged, d.context()),
      "VALIDATION_FAILED",
      "bad_signature",
    );
    assert.equal(details.signer, "/users/buyer.id");
    const stale = d.build([op.action("CANCEL")]);
    await d.commit([op.action("CANCEL")], [buyer, seller]);
    await assertContractErrorAsync(() => decideProposal(d.state, stale, d.context()), "CONFLICT", "stale_parent");
  });

  it("reports thresholds 2 of 3 and 3 of 5 by the paths that have not signed", async () => {
    const three = await treasury(3);
    const [a, b] = three.parties;
    let decision = await decideProposal(
      three.d.state,
      three.d.build([op.action("EXECUTE")], [signedAs(a!, "/signers/s0.id")]),
      three.d.context(),
    );
    assert.ok(!decision.complete);
    assert.deepEqual(decision.missing, [
      { predicate: "+threshold(2, /signers)", signers: ["/signers/s1.id", "/signers/s2.id"], needed: 1 },
    ]);
    decision = await decideProposal(
      three.d.state,
      three.d.build([op.action("EXECUTE")], [signedAs(a!, "/signers/s0.id"), signedAs(b!, "/signers/s1.id")]),
      three.d.context(),
    );
    assert.ok(decision.complete);

    const five = await treasury(5);
    const p = five.parties;
    decision = await decideProposal(
      five.d.state,
      five.d.build([op.action("LIST")], [{ key: p[4]!.seed, as: p[4]!.identity }]),
      five.d.context(),
    );
    assert.ok(!decision.complete);
    assert.deepEqual(decision.missing, [
      { predicate: "+threshold(3, /board.json)", signers: p.slice(0, 4).map((x) => x.identity), needed: 2 },
    ]);
  });

  it("reports any_signed and all_signed", async () => {
    const { d, parties } = await treasury(3);
    let decision = await decideProposal(
      d.state,
      d.build([op.action("SWEEP")], [signedAs(parties[1]!, "/signers/s1.id")]),
      d.context(),
    );
    assert.ok(!decision.complete);
    assert.deepEqual(decision.missing, [
      { predicate: "+all_signed(/signers)", signers: ["/signers/s0.id", "/signers/s2.id"], needed: 2 },
    ]);
    decision = await decideProposal(d.state, d.build([op.action("PING")]), d.context());
    assert.ok(!decision.complete);
    assert.deepEqual(decision.missing, [
      {
        predicate: "+any_signed(/signers)",
        signers: ["/signers/s0.id", "/signers/s1.id", "/signers/s2.id"],
        needed: 1,
      },
    ]);
  });

  it("counts the keys the signature predicates of the transitions a commit could take name, and only those", async () => {
    const { d, buyer, seller, arbiter } = await escrow();
    const at = { timestamp: 0, wasm: null };
    const stranger = new Party("stranger");
    const cancel = d.build([op.action("CANCEL")]);
    // Both CANCEL transitions stay possible: the buyer, the seller and the arbiter all count.
    assert.deepEqual(
      await proposalCountable(d.state, cancel, [stranger.key], at),
      new Set([buyer.key, seller.key, arbiter.key]),
    );
    const deliver = d.build([op.action("DELIVER")]);
    assert.deepEqual(await proposalCountable(d.state, deliver, [seller.key], at), new Set([seller.key]));
    // With the buyer's signature the only DELIVER transition is forbidden: nobody counts.
    assert.deepEqual(await proposalCountable(d.state, deliver, [seller.key, buyer.key], at), new Set());
    const three = await treasury(3);
    assert.deepEqual(
      await proposalCountable(three.d.state, three.d.build([op.action("LIST")]), [], at),
      new Set(three.parties.map((p) => p.key)),
      "the members of a .json list count",
    );
  });

  it("judges a proposal's attestations and refuses one that does not verify", async () => {
    const [owner, cosigner, oracle] = [new Party("owner"), new Party("cosigner"), new Party("oracle")];
    const d = await ContractDriver.create("att1", {
      model: `model Attested {
  initial open
  open -> paid [+PAYOUT +oracle_attests(/oracle.id, "doc", "yes") +signed_by(/users/cosigner.id)]
}`,
      rules: [],
      owner: owner.identity,
      state: { "/oracle.id": oracle.key, "/users/cosigner.id": cosigner.key },
    });
    const attest = (value: unknown) =>
      signAttestation(
        { contract_id: d.contractId, parent: d.state.head, claim: "doc", value },
        oracle.seed,
        Buffer.from(oracle.key, "hex"),
      );
    const payout = (attestation: ReturnType<typeof attest>) =>
      buildWireCommit(d.contractId, d.state.head, [op.action("PAYOUT")], [], [attestation]);
    const decision = await decideProposal(d.state, payout(attest("yes")), d.context());
    assert.ok(!decision.complete);
    assert.deepEqual(decision.missing, [
      { predicate: "+signed_by(/users/cosigner.id)", signers: ["/users/cosigner.id"], needed: 1 },
    ]);
    // Another value: no signature can make the oracle attest it.
    await assertContractErrorAsync(
      () => decideProposal(d.state, payout(attest("no")), d.context()),
      "VALIDATION_FAILED",
      "no_transition",
    );
    const tampered = { ...attest("yes"), value: "yes!" };
    const details = await assertContractErrorAsync(
      () => decideProposal(d.state, payout(tampered), d.context()),
      "VALIDATION_FAILED",
      "bad_attestation",
    );
    assert.equal(details.attestation, 0);
  });
});
