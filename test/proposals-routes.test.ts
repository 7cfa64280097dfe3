import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Operation } from "../src/contract/Commit.js";
import { signCommit } from "../src/contract/commitHash.js";
import { buildCommit } from "../src/contract/engine.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { type Principal, type TestApp, testApp } from "./support/testApps.js";

const MODEL = `model Deal {
  initial open
  open -> open [+NOTE]
  open -> cancelled [+CANCEL +signed_by(/users/buyer.id) +signed_by(/users/seller.id)]
  open -> settled [+SETTLE +signed_by(/users/buyer.id)]
  cancelled -> cancelled []
  settled -> settled []
}`;

const action = (label: string): Operation => ({ method: "action", value: label });

/** Polls until `done` (events are announced after the answer). */
async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 3000 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("proposals over REST", () => {
  let t: TestApp;
  let seller: Principal;
  let stranger: Principal;

  before(async () => {
    t = await testApp("rest", { limits: { openProposals: 3 } });
    seller = await t.principal();
    stranger = await t.principal();
  });
  after(() => t.close());

  async function deal(readers?: string[]) {
    const { id, head } = await t.contract({
      model: MODEL,
      rules: [],
      state: { "/users/buyer.id": t.owner.key, "/users/seller.id": seller.key },
      ...(readers ? { readers } : {}),
    });
    return { id, head };
  }

  /** A commit on `head` signed by the given principals under their state paths. */
  function commitOn(id: string, head: string, ops: Operation[], signers: Array<[Principal, string]>) {
    const c = buildCommit(id, head, ops);
    for (const [p, path] of signers) c.head.signatures[path] = signCommit(c.hash, p.identity.seed);
    return c;
  }

  const propose = (id: string, commit: unknown, as = t.owner) =>
    t.signed({ method: "POST", url: `/contracts/${id}/proposals`, body: { commit }, as });
  const sign = (id: string, hash: string, signatures: unknown, as = seller) =>
    t.signed({ method: "POST", url: `/contracts/${id}/proposals/${hash}/signatures`, body: { signatures }, as });

  it("collects the second party's signature and appends the commit once", async () => {
    const { id, head } = await deal();
    const commit = commitOn(id, head, [action("CANCEL")], [[t.owner, "/users/buyer.id"]]);
    const proposed = await propose(id, commit);
    assert.equal(proposed.statusCode, 201);
    const { proposal } = proposed.json();
    assert.equal(proposal.hash, commit.hash);
    assert.equal(proposal.status, "open");
    assert.equal(proposal.proposer, `ed25519:${t.owner.key}`);
    assert.equal(proposal.expires_at - proposal.created_at, 7 * 24 * 3600);
    assert.deepEqual(proposal.missing, [
      { predicate: "+signed_by(/users/seller.id)", signers: ["/users/seller.id"], needed: 1 },
    ]);
    assert.equal((await propose(id, commit)).statusCode, 200, "re-proposing an open proposal answers it");

    const listed = await t.app.inject({ method: "GET", url: `/contracts/${id}/proposals` });
    assert.deepEqual(
      listed.json().proposals.map((p: { hash: string }) => p.hash),
      [commit.hash],
    );

    const signed = await sign(id, commit.hash, { "/users/seller.id": signCommit(commit.hash, seller.identity.seed) });
    assert.equal(signed.statusCode, 200);
    const body = signed.json();
    assert.equal(body.proposal.status, "committed");
    assert.equal(body.proposal.commit_index, 1);
    assert.deepEqual(body.proposal.missing, []);
    assert.equal(body.commit.commit_hash, commit.hash);
    assert.equal(body.commit.index, 1);
    assert.equal(body.commit.leaf_index, 1, "the completed commit carries its log leaf");
    assert.equal(body.commit.new_state.current_state, "cancelled");

    const log = (await t.app.inject({ method: "GET", url: `/contracts/${id}/log` })).json();
    assert.equal(log.total, 2);
    assert.deepEqual(new Set(log.commits[1].signers), new Set([t.owner.key, seller.key].map((k) => `ed25519:${k}`)));

    const again = await sign(id, commit.hash, { "/users/seller.id": signCommit(commit.hash, seller.identity.seed) });
    assert.equal(again.statusCode, 200, "a signature sent to a committed proposal is an idempotent 200");
    assert.equal(again.json().proposal.status, "committed");
    const committed = await t.app.inject({ method: "GET", url: `/contracts/${id}/proposals?status=committed` });
    assert.equal(committed.json().proposals.length, 1);
  });

  it("appends at once a proposal that already validates", async () => {
    const { id, head } = await deal();
    const commit = commitOn(id, head, [action("SETTLE")], [[t.owner, "/users/buyer.id"]]);
    const res = await propose(id, commit);
    assert.equal(res.statusCode, 201);
    assert.equal(res.json().proposal.status, "committed");
    assert.equal(res.json().commit.index, 1);
  });

  it("refuses a wrong or foreign signature with bad_signature naming the signer", async () => {
    const { id, head } = await deal();
    const commit = commitOn(id, head, [action("CANCEL")], [[t.owner, "/users/buyer.id"]]);
    await propose(id, commit);
    const foreign = generateKeyPair();
    const res = await sign(id, commit.hash, { "/users/seller.id": signCommit(commit.hash, foreign.seed) });
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().code, "VALIDATION_FAILED");
    assert.equal(res.json().details.reason, "bad_signature");
    assert.equal(res.json().details.signer, "/users/seller.id");
    const other = buildCommit(id, head, [action("NOTE")]);
    const wrongHash = await sign(id, commit.hash, { "/users/seller.id": signCommit(other.hash, seller.identity.seed) });
    assert.equal(wrongHash.json().details.reason, "bad_signature");
    const malformed = await sign(id, commit.hash, { "/users/seller.id": "zz" });
    assert.equal(malformed.statusCode, 400);
    const stored = (await t.app.inject({ method: "GET", url: `/contracts/${id}/proposals/${commit.hash}` })).json();
    assert.deepEqual(
      Object.keys(stored.proposal.signatures),
      ["/users/buyer.id"],
      "nothing of a refused signature is stored",
    );
  });

  it("refuses at proposal time what signatures cannot fix, and a stale parent", async () => {
    const { id, head } = await deal();
    const res = await propose(id, commitOn(id, head, [action("RELEASE")], []));
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().details.reason, "no_transition");
    const note = await t.signed({
      method: "POST",
      url: `/contracts/${id}/commits`,
      body: { contract_id: id, action_labels: ["NOTE"] },
    });
    assert.equal(note.statusCode, 201);
    const stale = await propose(id, commitOn(id, head, [action("CANCEL")], []));
    assert.equal(stale.statusCode, 409);
    assert.equal(stale.json().details.reason, "stale_parent");
  });

  it("turns a proposal stale when the head moves, and refuses its signatures with 409", async () => {
    const { id, head } = await deal();
    const a = commitOn(id, head, [action("CANCEL")], [[t.owner, "/users/buyer.id"]]);
    const b = commitOn(id, head, [{ method: "post", path: "/notes/x.text", value: "x" }, action("CANCEL")], []);
    await propose(id, a);
    await propose(id, b, seller);
    const events: { hash: string; status: string }[] = [];
    const stop = t.hub.bus.onProposal(id, (p) => events.push(p as { hash: string; status: string }));
    await sign(id, a.hash, { "/users/seller.id": signCommit(a.hash, seller.identity.seed) });
    // The signature committed a; b, open on the same parent, turned stale: both are announced.
    await waitFor(() => events.length >= 2);
    assert.deepEqual(
      events.map((e) => [e.hash, e.status]),
      [
        [a.hash, "committed"],
        [b.hash, "stale"],
      ],
    );
    // A later append does not announce b again: it was stale already.
    const note = buildCommit(id, a.hash, [{ method: "post", path: "/notes/y.text", value: "y" }]);
    const posted = await t.signed({ method: "POST", url: `/contracts/${id}/commits`, body: { commit: note } });
    assert.equal(posted.statusCode, 201);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(events.length, 2);
    stop();
    const got = (await t.app.inject({ method: "GET", url: `/contracts/${id}/proposals/${b.hash}` })).json();
    assert.equal(got.proposal.status, "stale");
    assert.deepEqual(got.proposal.missing, []);
    const late = await sign(id, b.hash, { "/users/seller.id": signCommit(b.hash, seller.identity.seed) });
    assert.equal(late.statusCode, 409);
    assert.equal(late.json().details.reason, "proposal_stale");
    const stale = (await t.app.inject({ method: "GET", url: `/contracts/${id}/proposals?status=stale` })).json();
    assert.deepEqual(
      stale.proposals.map((p: { hash: string }) => p.hash),
      [b.hash],
    );
  });

  it("lets the proposer or the owner withdraw, and nobody else", async () => {
    const { id, head } = await deal();
    const c = commitOn(id, head, [action("CANCEL")], [[seller, "/users/seller.id"]]);
    await propose(id, c, seller);
    const url = `/contracts/${id}/proposals/${c.hash}`;
    const denied = await t.signed({ method: "DELETE", url, as: stranger });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().details.reason, "not_proposer");
    assert.equal((await t.app.inject({ method: "DELETE", url })).statusCode, 401);
    const ok = await t.signed({ method: "DELETE", url });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json().proposal.status, "withdrawn");
    const late = await sign(id, c.hash, { "/users/buyer.id": signCommit(c.hash, t.owner.identity.seed) }, t.owner);
    assert.equal(late.statusCode, 409);
    assert.equal(late.json().details.reason, "proposal_withdrawn");
    // Re-proposing a withdrawn proposal opens it again.
    assert.equal((await propose(id, c, seller)).json().proposal.status, "open");
  });

  it("caps open proposals per contract with 429", async () => {
    const { id, head } = await deal();
    for (let i = 0; i < 3; i++) {
      const c = commitOn(id, head, [{ method: "post", path: `/notes/n${i}.text`, value: "n" }, action("CANCEL")], []);
      assert.equal((await propose(id, c)).statusCode, 201);
    }
    const over = await propose(
      id,
      commitOn(id, head, [{ method: "post", path: "/notes/n9.text", value: "n" }, action("CANCEL")], []),
    );
    assert.equal(over.statusCode, 429);
    assert.equal(over.json().code, "RATE_LIMITED");
    assert.equal(over.json().details.reason, "too_many_proposals");
  });

  it("keeps a private contract's proposals private and requires a writer to propose", async () => {
    const { id, head } = await deal([]);
    const c = commitOn(id, head, [action("CANCEL")], [[t.owner, "/users/buyer.id"]]);
    assert.equal((await propose(id, c, stranger)).statusCode, 404);
    assert.equal((await propose(id, c)).statusCode, 201);
    assert.equal((await t.app.inject({ method: "GET", url: `/contracts/${id}/proposals` })).statusCode, 404);
    assert.equal(
      (await t.signed({ method: "GET", url: `/contracts/${id}/proposals/${c.hash}`, as: stranger })).statusCode,
      404,
    );
    const s = await sign(id, c.hash, { "/users/seller.id": signCommit(c.hash, seller.identity.seed) }, stranger);
    assert.equal(s.statusCode, 404);
    // The seller is a party: it reads and signs.
    const ok = await sign(id, c.hash, { "/users/seller.id": signCommit(c.hash, seller.identity.seed) });
    assert.equal(ok.json().proposal.status, "committed");
  });

  it("rejects a bad status filter and an unknown proposal", async () => {
    const { id } = await deal();
    const bad = await t.app.inject({ method: "GET", url: `/contracts/${id}/proposals?status=maybe` });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().details.reason, "bad_query");
    const missing = await t.app.inject({ method: "GET", url: `/contracts/${id}/proposals/${"a".repeat(64)}` });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().details.reason, "proposal_not_found");
  });
});

describe("proposal expiry", () => {
  it("announces a proposal whose lifetime ended to the contract's subscribers, once", async () => {
    let clock = Math.floor(Date.now() / 1000);
    const t = await testApp("rest", { limits: { proposalLifetimeSeconds: 100 }, hubNow: () => clock });
    try {
      const seller = await t.principal();
      const { id, head } = await t.contract({
        model: MODEL,
        rules: [],
        state: { "/users/buyer.id": t.owner.key, "/users/seller.id": seller.key },
      });
      const c = buildCommit(id, head, [action("CANCEL")]);
      const res = await t.signed({ method: "POST", url: `/contracts/${id}/proposals`, body: { commit: c } });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().proposal.status, "open");
      const events: { hash: string; status: string }[] = [];
      t.hub.bus.onProposal(id, (p) => events.push(p as { hash: string; status: string }));
      clock += 50;
      assert.equal(await t.hub.sweepProposalExpiry(), 0, "still open halfway through its lifetime");
      clock += 60;
      assert.equal(await t.hub.sweepProposalExpiry(), 1);
      assert.deepEqual(
        events.map((e) => [e.hash, e.status]),
        [[c.hash, "expired"]],
      );
      clock += 60;
      assert.equal(await t.hub.sweepProposalExpiry(), 0, "announced once");
    } finally {
      await t.close();
    }
  });

  it("shows a proposal past its lifetime as expired and refuses signatures with 409", async () => {
    const t = await testApp("rest", { limits: { proposalLifetimeSeconds: 0 } });
    try {
      const seller = await t.principal();
      const { id, head } = await t.contract({
        model: MODEL,
        rules: [],
        state: { "/users/buyer.id": t.owner.key, "/users/seller.id": seller.key },
      });
      const c = buildCommit(id, head, [action("CANCEL")]);
      const res = await t.signed({ method: "POST", url: `/contracts/${id}/proposals`, body: { commit: c } });
      assert.equal(res.statusCode, 201);
      assert.equal(res.json().proposal.status, "expired");
      const s = await t.signed({
        method: "POST",
        url: `/contracts/${id}/proposals/${c.hash}/signatures`,
        body: { signatures: { "/users/seller.id": signCommit(c.hash, seller.identity.seed) } },
        as: seller,
      });
      assert.equal(s.statusCode, 409);
      assert.equal(s.json().details.reason, "proposal_expired");
      const listed = await t.app.inject({ method: "GET", url: `/contracts/${id}/proposals?status=expired` });
      assert.equal(listed.json().proposals.length, 1);
    } finally {
      await t.close();
    }
  });
});
