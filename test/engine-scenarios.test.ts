/**
 * Contract scenarios at the engine level with real ed25519 keys: milestones, a 2-of-3
 * multisig, an oracle, and deadlines. Every rejection is asserted by code, reason and details.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { signAttestation } from "../src/contract/attestation.js";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import { stateView } from "../src/contract/engine.js";
import { ContractDriver, op } from "./support/ContractDriver.js";
import { failedOn, failedProperty } from "./support/engineAsserts.js";
import { Party } from "./support/Party.js";

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

describe("milestone contract", () => {
  const MILESTONES = `model Milestones {
    initial draft
    draft -> funded [+FUND +signed_by(/users/client.id)]
    funded -> submitted [+SUBMIT +signed_by(/users/contractor.id) +hash_matches(/milestones/current_hash.text)]
    submitted -> funded [+REJECT +signed_by(/users/client.id)]
    submitted -> approved [+APPROVE +signed_by(/users/client.id)]
    approved -> funded [+NEXT +signed_by(/users/client.id) +modifies(/milestones)]
    approved -> closed [+CLOSE +signed_by(/users/client.id)]
    closed -> closed []
  }`;

  async function milestones() {
    const client = new Party("client");
    const contractor = new Party("contractor");
    const d = await ContractDriver.create("milestones1", {
      model: MILESTONES,
      rules: ["always(eventually(closed))"],
      owner: client.identity,
      state: {
        "/users/client.id": client.key,
        "/users/contractor.id": contractor.key,
        "/milestones/current_hash.text": sha256("deliverable one"),
      },
    });
    return { d, client, contractor };
  }

  it("funds, rejects a submission, approves the next, moves to a second milestone and closes", async () => {
    const { d, client, contractor } = await milestones();
    await d.commit([op.action("FUND")], [client]);
    await d.commit([op.post("/deliverables/m1.text", "deliverable one"), op.action("SUBMIT")], [contractor]);
    await d.commit([op.action("REJECT")], [client]);
    await d.commit([op.post("/deliverables/m1.text", "deliverable one"), op.action("SUBMIT")], [contractor]);
    await d.commit([op.action("APPROVE")], [client]);
    await d.commit([op.post("/milestones/current_hash.text", sha256("deliverable two")), op.action("NEXT")], [client]);
    await d.commit([op.post("/deliverables/m2.text", "deliverable two"), op.action("SUBMIT")], [contractor]);
    await d.commit([op.action("APPROVE")], [client]);
    await d.commit([op.action("CLOSE")], [client]);
    const view = stateView(d.state);
    assert.equal(view.current_state, "closed");
    assert.equal(view.commit_count, 10);
  });

  it("rejects a submission whose content does not match the milestone hash", async () => {
    const { d, client, contractor } = await milestones();
    await d.commit([op.action("FUND")], [client]);
    const details = await assertContractErrorAsync(
      () => d.commit([op.post("/deliverables/m1.text", "something else"), op.action("SUBMIT")], [contractor]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(details.current_states, ["funded"]);
    assert.deepEqual(failedOn(details, "funded", "submitted"), [
      ["missing", "+hash_matches(/milestones/current_hash.text)"],
    ]);
  });

  it("rejects approval by the contractor and skipping a step", async () => {
    const { d, client, contractor } = await milestones();
    let details = await assertContractErrorAsync(
      () => d.commit([op.post("/deliverables/m1.text", "deliverable one"), op.action("SUBMIT")], [contractor]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(details.current_states, ["draft"]);
    assert.deepEqual(failedOn(details, "draft", "funded"), [
      ["missing", "+FUND"],
      ["missing", "+signed_by(/users/client.id)"],
    ]);
    await d.commit([op.action("FUND")], [client]);
    await d.commit([op.post("/deliverables/m1.text", "deliverable one"), op.action("SUBMIT")], [contractor]);
    details = await assertContractErrorAsync(
      () => d.commit([op.action("APPROVE")], [contractor]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(failedOn(details, "submitted", "approved"), [["missing", "+signed_by(/users/client.id)"]]);
  });

  it("only the client moves to the next milestone and rewrites its hash", async () => {
    const { d, client, contractor } = await milestones();
    await d.commit([op.action("FUND")], [client]);
    await d.commit([op.post("/deliverables/m1.text", "deliverable one"), op.action("SUBMIT")], [contractor]);
    await d.commit([op.action("APPROVE")], [client]);
    // Only the client may move on to the next milestone (and so rewrite its hash).
    await assertContractErrorAsync(
      () => d.commit([op.post("/milestones/current_hash.text", sha256("x")), op.action("NEXT")], [contractor]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.equal(d.state.data.get("/milestones/current_hash.text"), sha256("deliverable one"));
  });
});

describe("2-of-3 multisig", () => {
  const MULTISIG = `model Multisig {
    initial idle
    idle -> idle [+PAY +threshold(2, /signers)]
    idle -> frozen [+FREEZE +any_signed(/signers)]
    frozen -> idle [+UNFREEZE +all_signed(/signers)]
  }`;

  async function multisig() {
    const [a, b, c] = [new Party("a"), new Party("b"), new Party("c")];
    const d = await ContractDriver.create("multisig1", {
      model: MULTISIG,
      rules: [],
      owner: a.identity,
      state: { "/signers/a.id": a.key, "/signers/b.id": b.key, "/signers/c.id": c.key },
    });
    const as = (p: Party) => ({ key: p.seed, as: `/signers/${p.name}.id` });
    return { d, a, b, c, as };
  }

  it("accepts two or three distinct signers and rejects one", async () => {
    const { d, a, b, c, as } = await multisig();
    const two = await d.commit([op.post("/payments/1.json", { to: "x", amount: 5 }), op.action("PAY")], [as(a), as(c)]);
    assert.deepEqual([...two.signers].sort(), [a.key, c.key].sort());
    await d.commit([op.action("PAY")], [as(a), as(b), as(c)]);
    const details = await assertContractErrorAsync(
      () => d.commit([op.action("PAY")], [as(b)]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    const failed = failedProperty(details, "idle", "idle", "+threshold(2, /signers)");
    assert.equal(failed.kind, "missing");
    assert.deepEqual(failed.errors, ["1 of 2 required signatures from /signers"]);
    assert.equal(d.state.length, 3);
  });

  it("counts one key once even when it signs under two names, and ignores outsiders", async () => {
    const { d, a, as } = await multisig();
    const outsider = new Party("outsider");
    const details = await assertContractErrorAsync(
      () =>
        d.commit(
          [op.action("PAY")],
          [as(a), { key: a.seed, as: a.identity }, { key: outsider.seed, as: outsider.identity }],
        ),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(failedProperty(details, "idle", "idle", "+threshold(2, /signers)").errors, [
      "1 of 2 required signatures from /signers",
    ]);
  });

  it("freezes with any signer and unfreezes only with all of them", async () => {
    const { d, a, b, c, as } = await multisig();
    await d.commit([op.action("FREEZE")], [as(b)]);
    assert.equal(d.state.currentStateName, "frozen");
    const details = await assertContractErrorAsync(
      () => d.commit([op.action("UNFREEZE")], [as(a), as(b)]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(failedOn(details, "frozen", "idle"), [["missing", "+all_signed(/signers)"]]);
    await d.commit([op.action("UNFREEZE")], [as(a), as(b), as(c)]);
    assert.equal(d.state.currentStateName, "idle");
  });

  it("rejects a forged co-signature outright (bad_signature names the signer)", async () => {
    const { d, a } = await multisig();
    const forged = d.build(
      [op.action("PAY")],
      [
        { key: a.seed, as: "/signers/a.id" },
        { key: a.seed, as: "/signers/b.id" },
      ],
    );
    const details = await assertContractErrorAsync(() => d.append(forged), "VALIDATION_FAILED", "bad_signature");
    assert.equal(details.signer, "/signers/b.id");
  });
});

describe("oracle contract", () => {
  const ORACLE = `model Insurance {
    initial open
    open -> paid [+PAYOUT +oracle_attests(/oracle/weather.id, "rain", "true")]
    open -> open [+NOTE]
    paid -> paid []
  }`;

  async function insurance() {
    const oracle = new Party("oracle");
    const holder = new Party("holder");
    const d = await ContractDriver.create("insure1", {
      model: ORACLE,
      rules: [],
      owner: holder.identity,
      state: { "/oracle/weather.id": oracle.key, "/users/holder.id": holder.key },
    });
    const attest = (p: Party, value: unknown, parent: string | null = d.state.head, contractId = d.contractId) =>
      signAttestation({ contract_id: contractId, parent, claim: "rain", value }, p.seed, Buffer.from(p.key, "hex"));
    return { d, oracle, holder, attest };
  }

  it("pays out on the oracle's attestation bound to this position", async () => {
    const { d, oracle, attest } = await insurance();
    const commit = buildWireCommit(d.contractId, d.state.head, [op.action("PAYOUT")], [], [attest(oracle, "true")]);
    const stored = await d.append(commit);
    assert.equal(stored.attestations?.length, 1);
    assert.equal(d.state.currentStateName, "paid");
  });

  it('accepts the boolean value true as the text "true"', async () => {
    const { d, oracle, attest } = await insurance();
    await d.append(buildWireCommit(d.contractId, d.state.head, [op.action("PAYOUT")], [], [attest(oracle, true)]));
    assert.equal(d.state.currentStateName, "paid");
  });

  it("refuses an attestation of another value, by another key, or missing", async () => {
    const { d, oracle, holder, attest } = await insurance();
    for (const attestations of [[attest(oracle, "false")], [attest(holder, "true")], []]) {
      const details = await assertContractErrorAsync(
        () => d.append(buildWireCommit(d.contractId, d.state.head, [op.action("PAYOUT")], [], attestations)),
        "VALIDATION_FAILED",
        "no_transition",
      );
      assert.deepEqual(failedOn(details, "open", "paid"), [
        ["missing", '+oracle_attests(/oracle/weather.id, "rain", "true")'],
      ]);
    }
  });

  it("rejects an attestation replayed on another parent or contract (bad_attestation)", async () => {
    const { d, oracle, attest } = await insurance();
    const early = attest(oracle, "true");
    await d.commit([op.action("NOTE")]);
    let details = await assertContractErrorAsync(
      () => d.append(buildWireCommit(d.contractId, d.state.head, [op.action("PAYOUT")], [], [early])),
      "VALIDATION_FAILED",
      "bad_attestation",
    );
    assert.equal(details.attestation, 0);
    const elsewhere = attest(oracle, "true", d.state.head, "other-contract");
    details = await assertContractErrorAsync(
      () => d.append(buildWireCommit(d.contractId, d.state.head, [op.action("PAYOUT")], [], [elsewhere])),
      "VALIDATION_FAILED",
      "bad_attestation",
    );
    assert.equal(d.state.currentStateName, "open");
    await d.append(buildWireCommit(d.contractId, d.state.head, [op.action("PAYOUT")], [], [attest(oracle, "true")]));
    assert.equal(d.state.currentStateName, "paid");
  });
});

describe("deadline contract", () => {
  const DEADLINE = `model Delivery {
    initial open
    open -> delivered [+DELIVER +before(/terms/deadline.datetime) +signed_by(/users/seller.id)]
    open -> refunded [+REFUND +after(/terms/deadline.datetime) +signed_by(/users/buyer.id)]
    open -> open [+EXTEND +modifies(/terms) +signed_by(/users/buyer.id) +signed_by(/users/seller.id)]
    delivered -> delivered []
    refunded -> refunded []
  }`;
  const START = 1_700_000_000;
  const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

  async function delivery() {
    const buyer = new Party("buyer");
    const seller = new Party("seller");
    const d = await ContractDriver.create("delivery1", {
      model: DEADLINE,
      rules: [],
      owner: buyer.identity,
      state: {
        "/users/buyer.id": buyer.key,
        "/users/seller.id": seller.key,
        "/terms/deadline.datetime": iso(START + 100),
      },
    });
    return { d, buyer, seller };
  }

  it("accepts delivery before the deadline and refuses a refund then", async () => {
    const { d, buyer, seller } = await delivery();
    d.clock = START + 50;
    const details = await assertContractErrorAsync(
      () => d.commit([op.action("REFUND")], [buyer]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(failedOn(details, "open", "refunded"), [["missing", "+after(/terms/deadline.datetime)"]]);
    await d.commit([op.action("DELIVER")], [seller]);
    assert.equal(d.state.currentStateName, "delivered");
    assert.equal(d.log.at(-1)!.timestamp, START + 52);
  });

  it("at the deadline second itself, before is false and after is true", async () => {
    const { d, buyer, seller } = await delivery();
    d.clock = START + 99; // the next commit is stamped START + 100
    const details = await assertContractErrorAsync(
      () => d.commit([op.action("DELIVER")], [seller]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(failedOn(details, "open", "delivered"), [["missing", "+before(/terms/deadline.datetime)"]]);
    d.clock = START + 99;
    await d.commit([op.action("REFUND")], [buyer]);
    assert.equal(d.state.currentStateName, "refunded");
  });

  it("uses the hub stamp (ctx.timestamp), and an extension moves the deadline", async () => {
    const { d, buyer, seller } = await delivery();
    d.clock = START + 200;
    await d.commit([op.post("/terms/deadline.datetime", iso(START + 1000)), op.action("EXTEND")], [buyer, seller]);
    await d.commit([op.action("DELIVER")], [seller]);
    assert.equal(d.state.currentStateName, "delivered");
  });

  it("a deadline given as a .date counts from midnight UTC; a missing one makes both false", async () => {
    const buyer = new Party("buyer");
    const seller = new Party("seller");
    const d = await ContractDriver.create("delivery2", {
      model: DEADLINE.replaceAll("deadline.datetime", "deadline.date"),
      rules: [],
      owner: buyer.identity,
      state: { "/users/buyer.id": buyer.key, "/users/seller.id": seller.key },
    });
    let details = await assertContractErrorAsync(
      () => d.commit([op.action("DELIVER")], [seller]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(failedProperty(details, "open", "delivered", "+before(/terms/deadline.date)").errors, [
      "no date or datetime at /terms/deadline.date",
    ]);
    await d.commit([op.post("/terms/deadline.date", "2024-01-02"), op.action("EXTEND")], [buyer, seller]);
    d.clock = Date.UTC(2024, 0, 2) / 1000 - 1; // stamped exactly at midnight
    details = await assertContractErrorAsync(
      () => d.commit([op.action("DELIVER")], [seller]),
      "VALIDATION_FAILED",
      "no_transition",
    );
    assert.deepEqual(failedOn(details, "open", "delivered"), [["missing", "+before(/terms/deadline.date)"]]);
  });
});
