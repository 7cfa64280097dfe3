/**
 * A proposal's exact commit appended without the proposal (POST …/commits, or as the first
 * commit of a push) is what it proposed: the proposal is committed at that index, not stale,
 * and its subscribers hear `committed`, while the other proposals open on that head go stale.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Operation } from "../src/contract/Commit.js";
import { signCommit } from "../src/contract/commitHash.js";
import { buildCommit } from "../src/contract/engine.js";
import { type Principal, type TestApp, testApp } from "./support/testApps.js";

const MODEL = `model Deal {
  initial open
  open -> open [+NOTE]
  open -> cancelled [+CANCEL +signed_by(/users/buyer.id) +signed_by(/users/seller.id)]
  cancelled -> cancelled [+NOTE]
}`;

const action = (label: string): Operation => ({ method: "action", value: label });
const note = (text: string): Operation => ({ method: "post", path: `/notes/${text}.text`, value: text });

/** Polls until `done` (events are announced after the answer). */
async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 3000 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("a proposal's commit appended directly", () => {
  let t: TestApp;
  let seller: Principal;

  before(async () => {
    t = await testApp("rest");
    seller = await t.principal();
  });
  after(() => t.close());

  const get = (url: string) => t.app.inject({ method: "GET", url });
  const hashesOf = async (id: string, status: string) =>
    (await get(`/contracts/${id}/proposals?status=${status}`)).json().proposals.map((p: { hash: string }) => p.hash);

  /** A deal with two proposals open on its head: a CANCEL signed by the buyer, and another one. */
  async function twoProposals() {
    const { id, head } = await t.contract({
      model: MODEL,
      rules: [],
      state: { "/users/buyer.id": t.owner.key, "/users/seller.id": seller.key },
    });
    const cancel = buildCommit(id, head, [action("CANCEL")]);
    cancel.head.signatures["/users/buyer.id"] = signCommit(cancel.hash, t.owner.identity.seed);
    const other = buildCommit(id, head, [note("other"), action("CANCEL")]);
    for (const c of [cancel, other]) {
      const res = await t.signed({ method: "POST", url: `/contracts/${id}/proposals`, body: { commit: c } });
      assert.equal(res.json().proposal.status, "open");
    }
    // The seller completes the commit on its own machine and appends it without the proposal.
    cancel.head.signatures["/users/seller.id"] = signCommit(cancel.hash, seller.identity.seed);
    const events: { hash: string; status: string }[] = [];
    const stop = t.hub.bus.onProposal(id, (p) => events.push(p as { hash: string; status: string }));
    return { id, cancel, other, events, stop };
  }

  it("through POST …/commits: committed with its index and signatures, announced committed", async () => {
    const { id, cancel, other, events, stop } = await twoProposals();
    const posted = await t.signed({
      method: "POST",
      url: `/contracts/${id}/commits`,
      body: { commit: cancel },
      as: seller,
    });
    assert.equal(posted.statusCode, 201);
    assert.equal(posted.json().index, 1);
    await waitFor(() => events.length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    stop();
    assert.deepEqual(
      events.map((e) => [e.hash, e.status]),
      [
        [cancel.hash, "committed"],
        [other.hash, "stale"],
      ],
    );

    const { proposal } = (await get(`/contracts/${id}/proposals/${cancel.hash}`)).json();
    assert.equal(proposal.status, "committed");
    assert.equal(proposal.commit_index, 1);
    assert.deepEqual(proposal.signatures, cancel.head.signatures, "the signatures of the commit it became");
    assert.deepEqual(proposal.missing, []);
    assert.deepEqual(await hashesOf(id, "committed"), [cancel.hash]);
    assert.deepEqual(await hashesOf(id, "stale"), [other.hash]);

    const late = await t.signed({
      method: "POST",
      url: `/contracts/${id}/proposals/${cancel.hash}/signatures`,
      body: { signatures: { "/users/seller.id": cancel.head.signatures["/users/seller.id"] } },
      as: seller,
    });
    assert.equal(late.statusCode, 200, "a late signature is an idempotent retry");
    assert.equal(late.json().proposal.status, "committed");
    const again = await t.signed({ method: "POST", url: `/contracts/${id}/proposals`, body: { commit: cancel } });
    assert.equal(again.statusCode, 200, "re-proposing it answers the committed proposal");
    assert.equal(again.json().proposal.status, "committed");
    assert.equal(again.json().proposal.commit_index, 1);
  });

  it("as the first commit of a push: committed at its index; later commits of the push change nothing", async () => {
    const { id, cancel, other, events, stop } = await twoProposals();
    const next = buildCommit(id, cancel.hash, [note("after"), action("NOTE")]);
    const pushed = await t.signed({
      method: "POST",
      url: `/contracts/${id}/push`,
      body: { commits: [cancel, next] },
      as: seller,
    });
    assert.equal(pushed.statusCode, 200, pushed.body);
    assert.equal(pushed.json().pushed, 2);
    await waitFor(() => events.length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    stop();
    assert.deepEqual(
      events.map((e) => [e.hash, e.status]),
      [
        [cancel.hash, "committed"],
        [other.hash, "stale"],
      ],
    );
    const { proposal } = (await get(`/contracts/${id}/proposals/${cancel.hash}`)).json();
    assert.equal(proposal.status, "committed");
    assert.equal(proposal.commit_index, 1);
  });

  it("leaves a withdrawn proposal withdrawn", async () => {
    const { id, cancel, stop } = await twoProposals();
    stop();
    const url = `/contracts/${id}/proposals/${cancel.hash}`;
    assert.equal((await t.signed({ method: "DELETE", url })).statusCode, 200);
    const posted = await t.signed({
      method: "POST",
      url: `/contracts/${id}/commits`,
      body: { commit: cancel },
      as: seller,
    });
    assert.equal(posted.statusCode, 201);
    const { proposal } = (await get(url)).json();
    assert.equal(proposal.status, "withdrawn");
    assert.equal(proposal.commit_index, undefined);
  });
});
