import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import type { WireCommit } from "../src/contract/Commit.js";
import { verifyPool } from "../src/contract/VerifyPool.js";
import { ANONYMOUS } from "../src/hub/HubApi.js";
import {
  Actor,
  cleanup,
  ESCROW,
  escrowState,
  genesisCommit,
  openHub,
  postChain,
  signedCommit,
  signedFields,
  tempDir,
} from "./hub-fixtures.js";

after(cleanup);

async function escrowHub() {
  const hub = await openHub();
  const buyer = new Actor("buyer");
  const seller = new Actor("seller");
  const { contract_id: id } = await hub.createContract(buyer.caller, {
    model: ESCROW,
    rules: [],
    state: escrowState(buyer, seller),
  });
  return { hub, buyer, seller, id };
}

describe("Hub: contracts", () => {
  it("creates a contract with a hub-assigned id, readable as contract, state and log", async () => {
    const { hub, buyer, id } = await escrowHub();
    assert.match(id, /^c_[0-9a-f]{24}$/);
    const c = await hub.getContract(ANONYMOUS, id);
    assert.equal(c.model, ESCROW);
    assert.deepEqual(c.rules, []);
    assert.equal(c.state.current_state, "init");
    assert.equal(c.state.commit_count, 1);
    const log = await hub.getLog(ANONYMOUS, id, {});
    assert.equal(log.total, 1);
    assert.equal(log.commits[0]!.method, "genesis");
    assert.equal(log.commits[0]!.index, 0);
    const listed = await hub.listContracts(buyer.caller, {});
    assert.deepEqual(
      listed.contracts.map((x) => x.contract_id),
      [id],
    );
    await hub.close();
  });

  it("refuses anonymous creation, a foreign owner, a taken or malformed id, and bad fields", async () => {
    const hub = await openHub();
    const a = new Actor("a");
    const b = new Actor("b");
    await assertContractErrorAsync(() => hub.createContract(ANONYMOUS, {}), "UNAUTHORIZED");
    await assertContractErrorAsync(() => hub.createContract(a.caller, { owner: b.identity }), "FORBIDDEN");
    assert.equal((await hub.createContract(a.caller, { owner: a.key, contract_id: "mine" })).contract_id, "mine");
    const taken = await assertContractErrorAsync(
      () => hub.createContract(b.caller, { contract_id: "mine" }),
      "CONFLICT",
    );
    assert.equal(typeof taken.head, "string");
    await assertContractErrorAsync(() => hub.createContract(a.caller, { contract_id: "a/b" }), "INVALID_REQUEST");
    await assertContractErrorAsync(
      () => hub.createContract(a.caller, { contract_id: "synthesize" }),
      "INVALID_REQUEST",
    );
    await assertContractErrorAsync(
      () => hub.createContract(a.caller, { readers: ["nothex"] as string[] }),
      "INVALID_REQUEST",
    );
    await assertContractErrorAsync(() => hub.createContract(a.caller, { model: "model {" }), "VALIDATION_FAILED");
    await assertContractErrorAsync(() => hub.getContract(ANONYMOUS, "nope"), "NOT_FOUND");
    await hub.close();
  });

  it("hides a private contract from non-readers and lets the owner grant access", async () => {
    const hub = await openHub();
    const owner = new Actor("owner");
    const reader = new Actor("reader");
    const stranger = new Actor("stranger");
    const { contract_id: id } = await hub.createContract(owner.caller, { readers: [reader.identity] });
    await assertContractErrorAsync(() => hub.getState(ANONYMOUS, id), "NOT_FOUND");
    await assertContractErrorAsync(() => hub.getLog(stranger.caller, id, {}), "NOT_FOUND");
    assert.equal((await hub.getState(reader.caller, id)).commit_count, 1);
    const post = { contract_id: id, method: "post", path: "/notes/a.text", value: "x" };
    await assertContractErrorAsync(() => hub.submitCommit(reader.caller, id, post), "FORBIDDEN");
    assert.equal((await hub.listContracts(stranger.caller, {})).total, 0);
    await assertContractErrorAsync(
      () => hub.grant(reader.caller, id, { identity: stranger.identity, role: "writer" }),
      "FORBIDDEN",
    );
    assert.deepEqual(await hub.grant(owner.caller, id, { identity: stranger.key, role: "writer" }), {
      contract_id: id,
      identity: stranger.identity,
      role: "writer",
    });
    assert.equal((await hub.submitCommit(stranger.caller, id, post)).created, true);
    await hub.close();
  });
});

describe("Hub: submitCommit on an escrow", () => {
  it("walks deposit, deliver and release; a retry of the head is not a new commit", async () => {
    const { hub, buyer, seller, id } = await escrowHub();
    let head = (await hub.getState(ANONYMOUS, id)).head;
    const deposit = signedFields(id, head, [{ method: "action", value: "DEPOSIT" }], buyer);
    const body = { contract_id: id, method: "action", action: "DEPOSIT", parent: head, signatures: deposit.signatures };
    const first = await hub.submitCommit(buyer.caller, id, body);
    assert.equal(first.created, true);
    assert.equal(first.result.commit_hash, deposit.hash);
    assert.equal(first.result.index, 1);
    assert.equal(first.result.new_state.current_state, "deposited");
    const retry = await hub.submitCommit(buyer.caller, id, body);
    assert.equal(retry.created, false);
    assert.deepEqual(retry.result, first.result);

    head = first.result.commit_hash;
    const deliverData = [
      { method: "post" as const, path: "/notes/tracking.text", value: "T-1" },
      { method: "action" as const, value: "DELIVER" },
    ];
    const deliver = signedFields(id, head, deliverData, seller);
    const delivered = await hub.submitCommit(seller.caller, id, {
      contract_id: id,
      method: "post",
      path: "/notes/tracking.text",
      value: "T-1",
      action_labels: ["DELIVER"],
      ...deliver,
    });
    assert.equal(delivered.result.new_state.current_state, "delivered");
    const release = signedCommit(id, delivered.result.commit_hash, [{ method: "action", value: "RELEASE" }], [buyer]);
    const released = await hub.submitCommit(buyer.caller, id, { commit: release });
    assert.equal(released.result.new_state.current_state, "released");

    const log = await hub.getLog(ANONYMOUS, id, {});
    assert.equal(log.total, 4);
    assert.deepEqual(
      log.commits.map((e) => [e.index, e.method, e.action_labels, e.signer]),
      [
        [0, "genesis", undefined, undefined],
        [1, "action", ["DEPOSIT"], buyer.identity],
        [2, "post", ["DELIVER"], seller.identity],
        [3, "action", ["RELEASE"], buyer.identity],
      ],
    );
    assert.equal((await hub.getCommit(ANONYMOUS, id, deliver.hash)).path, "/notes/tracking.text");
    await hub.close();
  });

  it("answers stale parents, unsigned consent, bad bodies and strangers with their codes", async () => {
    const { hub, buyer, seller, id } = await escrowHub();
    const genesis = (await hub.getState(ANONYMOUS, id)).head;
    const stranger = new Actor("stranger");
    const deposit = { contract_id: id, action_labels: ["DEPOSIT"] };
    const unsigned = await assertContractErrorAsync(
      () => hub.submitCommit(buyer.caller, id, deposit),
      "VALIDATION_FAILED",
    );
    assert.equal(unsigned.reason, "no_transition");
    const signed = signedFields(id, genesis, [{ method: "action", value: "DEPOSIT" }], buyer);
    await assertContractErrorAsync(
      () => hub.submitCommit(buyer.caller, id, { ...deposit, signatures: signed.signatures }),
      "INVALID_REQUEST",
      "parent_required",
    );
    await assertContractErrorAsync(
      () => hub.submitCommit(buyer.caller, id, { ...deposit, contract_id: "other" }),
      "INVALID_REQUEST",
      "contract_id_mismatch",
    );
    await assertContractErrorAsync(() => hub.submitCommit(buyer.caller, id, { contract_id: id }), "INVALID_REQUEST");
    await assertContractErrorAsync(
      () => hub.submitCommit(buyer.caller, id, { contract_id: id, action_labels: ["POST"] }),
      "INVALID_REQUEST",
    );
    await assertContractErrorAsync(() => hub.submitCommit(ANONYMOUS, id, deposit), "UNAUTHORIZED");
    await assertContractErrorAsync(() => hub.submitCommit(stranger.caller, id, deposit), "FORBIDDEN");
    const wrongSigner = signedFields(id, genesis, [{ method: "action", value: "DEPOSIT" }], seller);
    await assertContractErrorAsync(
      () => hub.submitCommit(seller.caller, id, { ...deposit, ...wrongSigner }),
      "VALIDATION_FAILED",
    );
    await hub.submitCommit(buyer.caller, id, { ...deposit, ...signed });
    const stale = await assertContractErrorAsync(
      () =>
        hub.submitCommit(buyer.caller, id, {
          contract_id: id,
          method: "post",
          path: "/a.text",
          value: "x",
          parent: genesis,
        }),
      "CONFLICT",
    );
    assert.equal(stale.head, signed.hash);
    assert.equal((await hub.getState(ANONYMOUS, id)).commit_count, 2);
    await assertContractErrorAsync(() => hub.getCommit(ANONYMOUS, id, "ab"), "INVALID_REQUEST");
    await assertContractErrorAsync(() => hub.getCommit(ANONYMOUS, id, "ab".repeat(32)), "NOT_FOUND");
    await hub.close();
  });
});

describe("Hub: push and pull", () => {
  it("creates by push, skips stored commits, and pulls with since and limit", async () => {
    const hub = await openHub();
    const owner = new Actor("owner");
    const g = genesisCommit("pp", owner);
    const chain = postChain("pp", g.hash, 5);
    assert.deepEqual(await hub.push(owner.caller, "pp", { commits: [g, ...chain.slice(0, 2)] }), {
      pushed: 3,
      head: chain[1]!.hash,
    });
    assert.deepEqual(await hub.push(owner.caller, "pp", { commits: [g, ...chain] }), {
      pushed: 3,
      head: chain[4]!.hash,
    });
    assert.deepEqual(await hub.push(owner.caller, "pp", { commits: chain }), { pushed: 0, head: chain[4]!.hash });

    const all = await hub.pull(ANONYMOUS, "pp", {});
    assert.deepEqual(
      all.commits.map((c) => c.hash),
      [g.hash, ...chain.map((c) => c.hash)],
    );
    assert.equal(all.head, chain[4]!.hash);
    assert.equal(all.has_more, undefined);
    assert.deepEqual(all.commits[1]!.body, chain[0]!.data);
    const page = await hub.pull(ANONYMOUS, "pp", { since: chain[0]!.hash, limit: 2 });
    assert.deepEqual(
      page.commits.map((c) => c.hash),
      [chain[1]!.hash, chain[2]!.hash],
    );
    assert.equal(page.has_more, true);
    assert.equal((await hub.pull(ANONYMOUS, "pp", { since: chain[2]!.hash, limit: 2 })).has_more, false);
    await assertContractErrorAsync(() => hub.pull(ANONYMOUS, "pp", { since: "cd".repeat(32) }), "NOT_FOUND");
    await assertContractErrorAsync(() => hub.pull(ANONYMOUS, "pp", { since: "xyz" }), "INVALID_REQUEST");
    await assertContractErrorAsync(() => hub.pull(ANONYMOUS, "pp", { limit: -1 }), "INVALID_REQUEST");
    await hub.close();
  });

  it("refuses a push by a caller without write rights before verifying any of its signatures", async () => {
    const hub = await openHub();
    const buyer = new Actor("buyer");
    const seller = new Actor("seller");
    const stranger = new Actor("stranger");
    const { contract_id: id } = await hub.createContract(buyer.caller, {
      model: ESCROW,
      rules: [],
      state: escrowState(buyer, seller),
    });
    // Cached by its creation: a writer's push would start verifying before the lock.
    const head = (await hub.getContract(ANONYMOUS, id)).state.head;
    const commits: WireCommit[] = [];
    let parent = head;
    for (let i = 0; i < 64; i++) {
      // Signed by the buyer, whose key the state holds: only the pusher lacks the right.
      const c = signedCommit(id, parent, [{ method: "post", path: `/notes/n${i}.text`, value: "x" }], [buyer]);
      commits.push(c);
      parent = c.hash;
    }
    const before = verifyPool.submitted;
    const refused = await assertContractErrorAsync(() => hub.push(stranger.caller, id, { commits }), "FORBIDDEN");
    assert.equal(refused.reason, "not_a_writer");
    assert.equal(verifyPool.submitted, before, "no signature of the refused push went to the verification workers");
    assert.equal((await hub.getContract(ANONYMOUS, id)).state.commit_count, 1);
    await hub.close();
  });

  it("decides a push sent while the previous one was being stored against the keys of the state it lands on", async () => {
    const hub = await openHub();
    const owner = new Actor("owner");
    const first = new Actor("signer");
    const second = new Actor("signer");
    const { contract_id: id } = await hub.createContract(owner.caller, {
      model: null,
      rules: [],
      state: { "/users/signer.id": first.key },
    });
    const head = async () => (await hub.getContract(ANONYMOUS, id)).state.head;
    const post = (parent: string, path: string, value: string, signers: Actor[] = []) =>
      signedCommit(id, parent, [{ method: "post", path, value }], signers);

    // Both pushes start on the cached state before the first is stored; the second's
    // signature, verified early against that state, still holds on the state it lands on.
    const note = post(await head(), "/notes/a.text", "a");
    const signed = post(note.hash, "/notes/b.text", "b", [first]);
    const [a, b] = await Promise.all([
      hub.push(owner.caller, id, { commits: [note] }),
      hub.push(owner.caller, id, { commits: [signed] }),
    ]);
    assert.deepEqual([a.pushed, b.pushed, b.head], [1, 1, signed.hash]);

    // The first push hands /users/signer.id to another key: a signature the early check
    // found good against the old key is refused on the state it lands on.
    const rekey = post(signed.hash, "/users/signer.id", second.key);
    const stale = post(rekey.hash, "/notes/c.text", "c", [first]);
    const [rekeyed, refused] = await Promise.allSettled([
      hub.push(owner.caller, id, { commits: [rekey] }),
      hub.push(owner.caller, id, { commits: [stale] }),
    ]);
    assert.equal(rekeyed.status, "fulfilled");
    assert.equal(refused.status, "rejected");
    assert.equal((refused as PromiseRejectedResult).reason.code, "VALIDATION_FAILED");
    assert.equal((refused as PromiseRejectedResult).reason.details.reason, "bad_signature");
    assert.equal(await head(), rekey.hash);

    // And the other way round: a signature the early check refused against the old key is
    // accepted when the earlier push made its key the signer's.
    const back = post(rekey.hash, "/users/signer.id", first.key);
    const fresh = post(back.hash, "/notes/d.text", "d", [first]);
    await Promise.all([
      hub.push(owner.caller, id, { commits: [back] }),
      hub.push(owner.caller, id, { commits: [fresh] }),
    ]);
    assert.equal(await head(), fresh.hash);
    await hub.close();
  });

  it("refuses non-genesis creation, foreign genesis, stale parents, and stores nothing of a bad batch", async () => {
    const hub = await openHub();
    const owner = new Actor("owner");
    const other = new Actor("other");
    const g = genesisCommit("pp", owner);
    const chain = postChain("pp", g.hash, 3);
    const noGenesis = await assertContractErrorAsync(
      () => hub.push(owner.caller, "pp", { commits: chain }),
      "CONFLICT",
    );
    assert.equal(noGenesis.head, null);
    await assertContractErrorAsync(() => hub.push(other.caller, "pp", { commits: [g] }), "FORBIDDEN");
    await assertContractErrorAsync(() => hub.push(ANONYMOUS, "pp", { commits: [g] }), "UNAUTHORIZED");
    await hub.push(owner.caller, "pp", { commits: [g, chain[0]!] });

    const fork = postChain("pp", g.hash, 1, "fork");
    const stale = await assertContractErrorAsync(() => hub.push(owner.caller, "pp", { commits: fork }), "CONFLICT");
    assert.equal(stale.head, chain[0]!.hash);
    const broken = [chain[1]!, { ...chain[2]!, hash: "ee".repeat(32) }];
    await assertContractErrorAsync(() => hub.push(owner.caller, "pp", { commits: broken }), "VALIDATION_FAILED");
    const badPath = postChain("pp", chain[1]!.hash, 1).map((c) => ({
      ...c,
      data: [{ method: "post" as const, path: "/x.id", value: "no" }],
    }));
    await assertContractErrorAsync(
      () => hub.push(owner.caller, "pp", { commits: [chain[1]!, ...badPath] }),
      "VALIDATION_FAILED",
    );
    assert.equal((await hub.getState(ANONYMOUS, "pp")).commit_count, 2);
    await assertContractErrorAsync(() => hub.push(owner.caller, "pp", { commits: "x" as never }), "INVALID_REQUEST");
    await hub.close();
  });

  it("pages the log with limit and offset and rejects bad values", async () => {
    const hub = await openHub();
    const owner = new Actor("owner");
    const g = genesisCommit("lg", owner);
    await hub.push(owner.caller, "lg", { commits: [g, ...postChain("lg", g.hash, 149)] });
    const first = await hub.getLog(ANONYMOUS, "lg", {});
    assert.equal(first.total, 150);
    assert.equal(first.commits.length, 100);
    const tail = await hub.getLog(ANONYMOUS, "lg", { limit: 30, offset: 140 });
    assert.deepEqual(
      tail.commits.map((e) => e.index),
      [140, 141, 142, 143, 144, 145, 146, 147, 148, 149],
    );
    for (const bad of [{ limit: -1 }, { offset: 1.5 }, { limit: "x" as never }]) {
      await assertContractErrorAsync(() => hub.getLog(ANONYMOUS, "lg", bad), "INVALID_REQUEST");
    }
    await hub.close();
  });

  it("keeps every contract, commit and state across a restart", async () => {
    const dir = tempDir();
    const hub = await openHub(dir);
    const buyer = new Actor("buyer");
    const seller = new Actor("seller");
    const { contract_id: id } = await hub.createContract(buyer.caller, {
      model: ESCROW,
      state: escrowState(buyer, seller),
    });
    const head = (await hub.getState(ANONYMOUS, id)).head;
    const signed = signedFields(id, head, [{ method: "action", value: "DEPOSIT" }], buyer);
    await hub.submitCommit(buyer.caller, id, { contract_id: id, action_labels: ["DEPOSIT"], ...signed });
    const before = { state: await hub.getState(ANONYMOUS, id), log: await hub.getLog(ANONYMOUS, id, {}) };
    await hub.close();
    const reopened = await openHub(dir);
    assert.deepEqual(await reopened.getState(ANONYMOUS, id), before.state);
    assert.deepEqual(await reopened.getLog(ANONYMOUS, id, {}), before.log);
    assert.equal(before.state.current_state, "deposited");
    await reopened.close();
  });
});
