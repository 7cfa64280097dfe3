import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import type { CommitSigner } from "../src/contract/buildWireCommit.js";
import { stateView } from "../src/contract/engine.js";
import { instantiateTemplate } from "../src/templates/index.js";
import { ContractDriver, op } from "./support/ContractDriver.js";
import { Party } from "./support/Party.js";

const FUTURE = "2030-01-01T00:00:00Z";
const PAST = "2020-01-01T00:00:00Z";

/** Creates a contract from a template, owned by the first party, through the engine's genesis validation. */
async function fromTemplate(id: string, params: Record<string, unknown>, owner: Party) {
  const instance = instantiateTemplate(id, params, { owner: owner.identity });
  return ContractDriver.create(`tpl_${id}`, { ...instance, owner: owner.identity });
}

function current(d: ContractDriver): string {
  return stateView(d.state).current_state;
}

function parties(...names: string[]): Record<string, Party> {
  return Object.fromEntries(names.map((n) => [n, new Party(n)]));
}

describe("every template walks a signed happy path at the engine level", () => {
  it("escrow: deposit, deliver with a post, release; the seller cannot release", async () => {
    const { buyer, seller, arbiter } = parties("buyer", "seller", "arbiter");
    const d = await fromTemplate("escrow", { buyer: buyer!.key, seller: seller!.key, arbiter: arbiter!.key }, buyer!);
    assert.deepEqual(
      stateView(d.state).valid_actions.map((a) => [a.action, a.required_signer]),
      [["DEPOSIT", "/users/buyer.id"]],
    );
    await d.commit([op.action("DEPOSIT")], [buyer!]);
    await d.commit([op.post("/shipping/tracking.text", "TRACK-1"), op.action("DELIVER")], [seller!]);
    const details = await assertContractErrorAsync(
      () => d.commit([op.action("RELEASE")], [seller!]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(details.current_states, ["delivered"]);
    await d.commit([op.action("RELEASE")], [buyer!]);
    assert.equal(current(d), "released");
    assert.equal(d.state.data.get("/shipping/tracking.text"), "TRACK-1");
  });

  it("escrow: a dispute is resolved by the arbiter and by no one else", async () => {
    const { buyer, seller, arbiter } = parties("buyer", "seller", "arbiter");
    const d = await fromTemplate("escrow", { buyer: buyer!.key, seller: seller!.key, arbiter: arbiter!.key }, buyer!);
    await d.commit([op.action("DEPOSIT")], [buyer!]);
    await d.commit([op.action("DISPUTE")], [buyer!]);
    await assertContractErrorAsync(
      () => d.commit([op.action("REFUND")], [buyer!]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    await d.commit([op.action("REFUND")], [arbiter!]);
    assert.equal(current(d), "refunded");
  });

  it("milestone: fund, deliver and pay each milestone; the contractor cannot pay itself", async () => {
    const { client, contractor } = parties("client", "contractor");
    const d = await fromTemplate("milestone", { client: client!.key, contractor: contractor!.key }, client!);
    await d.commit([op.action("FUND")], [client!]);
    await d.commit([op.action("DELIVER_M1")], [contractor!]);
    await d.commit([op.action("REJECT_M1")], [client!]);
    await d.commit([op.post("/work/m1.text", "v2"), op.action("DELIVER_M1")], [contractor!]);
    await assertContractErrorAsync(
      () => d.commit([op.action("PAY_M1")], [contractor!]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    await d.commit([op.action("PAY_M1")], [client!]);
    await d.commit([op.action("DELIVER_M2")], [contractor!]);
    await d.commit([op.action("PAY_M2")], [client!]);
    assert.equal(current(d), "m2_paid");
  });

  it("atomic_swap: both lock before the deadline and the swap settles; no refund before the deadline", async () => {
    const { party_a: a, party_b: b } = parties("party_a", "party_b");
    const d = await fromTemplate("atomic_swap", { party_a: a!.key, party_b: b!.key, deadline: FUTURE }, a!);
    await d.commit([op.action("LOCK_B")], [b!]);
    await assertContractErrorAsync(() => d.commit([op.action("REFUND")], [b!]), "VALIDATION_FAILED", "no_transition");
    await d.commit([op.action("LOCK_A")], [a!]);
    assert.equal(current(d), "locked");
    await d.commit([op.action("SWAP")], [a!]);
    assert.equal(current(d), "swapped");
  });

  it("atomic_swap: a lone lock is refunded to its owner after the deadline, and locks close at the deadline", async () => {
    const { party_a: a, party_b: b } = parties("party_a", "party_b");
    const d = await fromTemplate("atomic_swap", { party_a: a!.key, party_b: b!.key, deadline: PAST }, a!);
    await assertContractErrorAsync(() => d.commit([op.action("LOCK_A")], [a!]), "VALIDATION_FAILED", "no_transition");
    const open = await fromTemplate("atomic_swap", { party_a: a!.key, party_b: b!.key, deadline: FUTURE }, a!);
    await open.commit([op.action("LOCK_A")], [a!]);
    const afterDeadline = { timestamp: Date.parse("2031-01-01T00:00:00Z") / 1000 };
    await assertContractErrorAsync(
      () => open.commit([op.action("REFUND")], [b!], afterDeadline),
      "VALIDATION_FAILED",
      "no_transition",
    );
    await open.commit([op.action("REFUND")], [a!], afterDeadline);
    assert.equal(current(open), "refunded");
  });

  it("multisig: 2 of 3 execute a proposal; one signature does not", async () => {
    const signers = ["s1", "s2", "s3"].map((n) => new Party(n));
    const as = (i: number): CommitSigner => ({ key: signers[i]!.seed, as: `/signers/signer_${i + 1}.id` });
    const d = await ContractDriver.create("tpl_multisig", {
      ...instantiateTemplate("multisig", { signers: signers.map((s) => s.identity), threshold: 2 }),
      owner: signers[0]!.identity,
    });
    await d.commit([op.post("/proposals/current.json", { pay: 10 }), op.action("PROPOSE")], [as(2)]);
    await assertContractErrorAsync(
      () => d.commit([op.action("EXECUTE")], [as(0)]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    await d.commit([op.action("EXECUTE")], [as(0), as(2)]);
    assert.equal(current(d), "executed");
  });

  it("subscription: subscribe, renew moving the paid-until date, suspend only after it, cancel", async () => {
    const { provider, subscriber } = parties("provider", "subscriber");
    const params = { provider: provider!.key, subscriber: subscriber!.key, paid_until: "2023-12-01T00:00:00Z" };
    const d = await fromTemplate("subscription", params, provider!);
    await d.commit([op.action("SUBSCRIBE")], [subscriber!]);
    // The driver's clock is in November 2023: the period has not ended.
    await assertContractErrorAsync(
      () => d.commit([op.action("SUSPEND")], [provider!]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    await assertContractErrorAsync(
      () => d.commit([op.action("RENEW")], [subscriber!]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    await d.commit([op.post("/terms/paid_until.datetime", "2024-01-01T00:00:00Z"), op.action("RENEW")], [subscriber!]);
    await d.commit([op.action("SUSPEND")], [provider!], { timestamp: Date.parse("2024-02-01T00:00:00Z") / 1000 });
    assert.equal(current(d), "suspended");
    await d.commit([op.action("CANCEL")], [subscriber!]);
    assert.equal(current(d), "cancelled");
  });

  it("service_agreement: accept, deliver, request changes, deliver, approve; no early termination", async () => {
    const { client, provider } = parties("client", "provider");
    const d = await fromTemplate(
      "service_agreement",
      { client: client!.key, provider: provider!.key, deadline: FUTURE, scope: "Build a website" },
      client!,
    );
    await d.commit([op.action("ACCEPT")], [provider!]);
    await assertContractErrorAsync(
      () => d.commit([op.action("TERMINATE")], [client!]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    await d.commit([op.post("/work/site.text", "https://example.test/v1"), op.action("DELIVER")], [provider!]);
    await d.commit([op.action("REQUEST_CHANGES")], [client!]);
    await d.commit([op.action("DELIVER")], [provider!]);
    await d.commit([op.action("APPROVE")], [client!]);
    assert.equal(current(d), "completed");
  });
});

describe("the terms a template's predicates read cannot be rewritten by a later commit", () => {
  it("multisig: a signer cannot add a key of its own under /signers to meet the threshold alone", async () => {
    const signers = ["s1", "s2", "s3"].map((n) => new Party(n));
    const sock = new Party("sock");
    const d = await ContractDriver.create("tpl_multisig", {
      ...instantiateTemplate("multisig", { signers: signers.map((s) => s.identity), threshold: 2 }),
      owner: signers[0]!.identity,
    });
    const s1: CommitSigner = { key: signers[0]!.seed, as: "/signers/signer_1.id" };
    await assertContractErrorAsync(
      () => d.commit([op.post("/signers/sock.id", sock.key), op.action("PROPOSE")], [s1]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    await d.commit([op.action("PROPOSE")], [s1]);
    await assertContractErrorAsync(
      () => d.commit([op.post("/signers/sock.id", sock.key), op.action("WITHDRAW")], [s1]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.equal(d.state.data.has("/signers/sock.id"), false);
  });

  it("service_agreement: the client cannot move the deadline to terminate early", async () => {
    const { client, provider } = parties("client", "provider");
    const d = await fromTemplate(
      "service_agreement",
      { client: client!.key, provider: provider!.key, deadline: FUTURE },
      client!,
    );
    await d.commit([op.action("ACCEPT")], [provider!]);
    await d.commit([op.action("DELIVER")], [provider!]);
    await assertContractErrorAsync(
      () => d.commit([op.post("/terms/deadline.datetime", PAST), op.action("REQUEST_CHANGES")], [client!]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    await d.commit([op.action("REQUEST_CHANGES")], [client!]);
    await assertContractErrorAsync(
      () => d.commit([op.action("TERMINATE")], [client!]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.equal(d.state.data.get("/terms/deadline.datetime"), FUTURE);
  });

  it("atomic_swap: a locker cannot move the deadline to take its side back early", async () => {
    const { party_a: a, party_b: b } = parties("party_a", "party_b");
    const d = await fromTemplate("atomic_swap", { party_a: a!.key, party_b: b!.key, deadline: FUTURE }, a!);
    await assertContractErrorAsync(
      () => d.commit([op.post("/terms/deadline.datetime", PAST), op.action("LOCK_A")], [a!]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    await d.commit([op.action("LOCK_A")], [a!]);
    await assertContractErrorAsync(() => d.commit([op.action("REFUND")], [a!]), "VALIDATION_FAILED", "no_transition");
    assert.equal(d.state.data.get("/terms/deadline.datetime"), FUTURE);
  });
});
