/**
 * Proposals whose commit carries asset operations or a model change: judged at proposal time
 * as the commit of its proposer, completed by whoever uploads the last signature, appended
 * with its effects. The uploader's own access counts for nothing (the signatures do).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Operation } from "../src/contract/Commit.js";
import { signCommit } from "../src/contract/commitHash.js";
import { buildCommit } from "../src/contract/engine.js";
import { type Principal, type TestApp, testApp } from "./support/testApps.js";

const BOTH = "+signed_by(/users/buyer.id) +signed_by(/users/seller.id)";
const DEAL = `model Deal {
  initial open
  open -> open [+REPOST ${BOTH}]
  open -> open [+CREATE ${BOTH}]
  open -> done [+MODEL ${BOTH}]
  done -> done []
}`;
const NEXT = `model Next {
  initial open
  open -> done [+MODEL ${BOTH}]
  done -> over [+FINISH +signed_by(/users/seller.id)]
  over -> over []
}`;

describe("proposals carrying asset operations and model changes", () => {
  let t: TestApp;
  let seller: Principal;

  before(async () => {
    t = await testApp("rest");
    seller = await t.principal();
  });
  after(() => t.close());

  const sign = (id: string, hash: string, signatures: Record<string, string>, as: Principal) =>
    t.signed({ method: "POST", url: `/contracts/${id}/proposals/${hash}/signatures`, body: { signatures }, as });

  /** The owner (buyer) proposes `ops` with its own signature; the seller's is missing. */
  async function proposed(ops: Operation[]) {
    const state = { "/users/buyer.id": t.owner.key, "/users/seller.id": seller.key };
    const { id, head } = await t.contract({ model: DEAL, rules: [], state });
    const commit = buildCommit(id, head, ops);
    commit.head.signatures = { "/users/buyer.id": signCommit(commit.hash, t.owner.identity.seed) };
    const res = await t.signed({ method: "POST", url: `/contracts/${id}/proposals`, body: { commit } });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().proposal.status, "open");
    return { id, hash: commit.hash };
  }

  it("completes a REPOST from a private contract its proposer may read, whoever uploads the last signature", async () => {
    const source = await t.contract({ model: null, rules: [], state: { "/notes/a.text": "secret" }, readers: [] });
    const { id, hash } = await proposed([
      { method: "repost", path: `/reposts/${source.id}/notes/a.text`, value: "secret" },
    ]);
    // The seller may not read the source; its signature is what the commit lacked.
    const done = await sign(id, hash, { "/users/seller.id": signCommit(hash, seller.identity.seed) }, seller);
    assert.equal(done.statusCode, 200, done.body);
    assert.equal(done.json().proposal.status, "committed");
    assert.equal(done.json().commit.index, 1);
  });

  it("appends a proposed CREATE with its effect on the balances", async () => {
    const { id, hash } = await proposed([
      { method: "create", value: { asset_id: "tok", quantity: 500, divisibility: 2 } },
    ]);
    const done = await sign(id, hash, { "/users/seller.id": signCommit(hash, seller.identity.seed) }, seller);
    assert.equal(done.json().proposal.status, "committed");
    const assets = (await t.app.inject({ method: "GET", url: `/contracts/${id}/assets` })).json();
    assert.deepEqual(assets.balances, [{ asset_id: "tok", issuer: id, amount: 500 }]);
  });

  it("appends a proposed model change, and the next commit is judged by the new model", async () => {
    const { id, hash } = await proposed([{ method: "model", value: NEXT }]);
    const done = await sign(id, hash, { "/users/seller.id": signCommit(hash, seller.identity.seed) }, seller);
    assert.equal(done.statusCode, 200, done.body);
    assert.equal(done.json().proposal.status, "committed");
    const next = buildCommit(id, hash, [{ method: "action", value: "FINISH" }]);
    const res = await t.signed({ method: "POST", url: `/contracts/${id}/proposals`, body: { commit: next } });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(
      res.json().proposal.missing.map((m: { signers: string[] }) => m.signers),
      [["/users/seller.id"]],
    );
  });
});
