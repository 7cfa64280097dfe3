/**
 * Which signatures the signatures route takes: only those of keys a transition the proposal's
 * commit could still take would count. A refused upload stores nothing, so nobody who may only
 * read can fill a proposal with throw-away keys, change its commit's signers, or make it
 * impossible with a forbidden signer's signature.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Operation } from "../src/contract/Commit.js";
import { signCommit } from "../src/contract/commitHash.js";
import { buildCommit } from "../src/contract/engine.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { type Principal, type TestApp, testApp } from "./support/testApps.js";

const DEAL = `model Deal {
  initial open
  open -> cancelled [+CANCEL +signed_by(/users/buyer.id) +signed_by(/users/seller.id)]
  cancelled -> cancelled []
}`;

const GUARDED = `model Guarded {
  initial a
  a -> b [+GO +signed_by(/users/x.id) -signed_by(/users/y.id)]
  b -> b []
}`;

/** x or y may go with z, but not together: either alone can count, both make the commit impossible. */
const EITHER = `model Either {
  initial a
  a -> b [+GO +signed_by(/users/x.id) +signed_by(/users/z.id) -signed_by(/users/y.id)]
  a -> c [+GO +signed_by(/users/y.id) +signed_by(/users/z.id) -signed_by(/users/x.id)]
  b -> b []
  c -> c []
}`;

const TREASURY = `model Treasury {
  initial idle
  idle -> done [+EXECUTE +threshold(2, /signers)]
  done -> done []
}`;

const action = (label: string): Operation => ({ method: "action", value: label });

describe("signatures a proposal can count", () => {
  let t: TestApp;
  let seller: Principal;
  let stranger: Principal;

  before(async () => {
    t = await testApp("rest");
    seller = await t.principal();
    stranger = await t.principal();
  });
  after(() => t.close());

  const sign = (id: string, hash: string, signatures: Record<string, string>, as: Principal) =>
    t.signed({ method: "POST", url: `/contracts/${id}/proposals/${hash}/signatures`, body: { signatures }, as });
  const read = async (id: string, hash: string) =>
    (await t.app.inject({ method: "GET", url: `/contracts/${id}/proposals/${hash}` })).json().proposal;

  /** A contract of `model` with `state`, and an open proposal of `ops` on its head, unsigned. */
  async function proposed(model: string, state: Record<string, unknown>, ops: Operation[]) {
    const { id, head } = await t.contract({ model, rules: [], state });
    const commit = buildCommit(id, head, ops);
    const res = await t.signed({ method: "POST", url: `/contracts/${id}/proposals`, body: { commit } });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().proposal.status, "open");
    return { id, hash: commit.hash };
  }

  it("refuses throw-away keys' signatures, stores none of them, and lets the real co-signers complete it", async () => {
    const { id, hash } = await proposed(DEAL, { "/users/buyer.id": t.owner.key, "/users/seller.id": seller.key }, [
      action("CANCEL"),
    ]);
    const junk: Record<string, string> = {};
    for (let i = 0; i < 31; i++) {
      const k = generateKeyPair();
      junk[`ed25519:${k.publicKey.toString("hex")}`] = signCommit(hash, k.seed);
    }
    const [first] = Object.keys(junk);
    const res = await sign(id, hash, junk, stranger);
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().code, "VALIDATION_FAILED");
    assert.equal(res.json().details.reason, "signature_not_counted");
    assert.equal(res.json().details.signer, first);
    // A registered reader's own identity counts no more than a throw-away key does.
    const own = { [`ed25519:${stranger.key}`]: signCommit(hash, stranger.identity.seed) };
    const mixed = await sign(
      id,
      hash,
      { "/users/buyer.id": signCommit(hash, t.owner.identity.seed), ...own },
      stranger,
    );
    assert.equal(mixed.statusCode, 422);
    assert.equal(mixed.json().details.reason, "signature_not_counted");
    assert.equal(mixed.json().details.signer, `ed25519:${stranger.key}`);
    assert.deepEqual((await read(id, hash)).signatures, {}, "nothing of a refused upload is stored");

    // A party's key counts under either spelling, uploaded by anyone who may read.
    const buyerSig = await sign(
      id,
      hash,
      { [`ed25519:${t.owner.key}`]: signCommit(hash, t.owner.identity.seed) },
      stranger,
    );
    assert.equal(buyerSig.statusCode, 200);
    assert.equal(buyerSig.json().proposal.status, "open");
    const done = await sign(id, hash, { "/users/seller.id": signCommit(hash, seller.identity.seed) }, seller);
    assert.equal(done.statusCode, 200);
    assert.equal(done.json().proposal.status, "committed");
    const log = (await t.app.inject({ method: "GET", url: `/contracts/${id}/log` })).json();
    assert.equal(log.commits[1].hash, hash);
    assert.deepEqual(
      new Set(log.commits[1].signers),
      new Set([t.owner.key, seller.key].map((k) => `ed25519:${k}`)),
      "only the parties are the commit's signers",
    );
  });

  it("refuses the signature of a key a -signed_by forbids, stores nothing, and the proposal still completes", async () => {
    const x = await t.principal();
    const y = await t.principal();
    const { id, hash } = await proposed(GUARDED, { "/users/x.id": x.key, "/users/y.id": y.key }, [action("GO")]);
    const res = await sign(id, hash, { "/users/y.id": signCommit(hash, y.identity.seed) }, y);
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().code, "VALIDATION_FAILED");
    assert.equal(res.json().details.reason, "signature_not_counted");
    assert.equal(res.json().details.signer, "/users/y.id");
    const kept = await read(id, hash);
    assert.equal(kept.status, "open");
    assert.deepEqual(kept.signatures, {}, "the refused signature is not stored");
    assert.deepEqual(kept.missing, [{ predicate: "+signed_by(/users/x.id)", signers: ["/users/x.id"], needed: 1 }]);
    const done = await sign(id, hash, { "/users/x.id": signCommit(hash, x.identity.seed) }, x);
    assert.equal(done.statusCode, 200);
    assert.equal(done.json().proposal.status, "committed");
    assert.equal(done.json().commit.new_state.current_state, "b");
  });

  it("judges concurrent uploads together: of two signatures each countable alone but not together, one is refused", async () => {
    const [x, y, z] = [await t.principal(), await t.principal(), await t.principal()];
    const { id, hash } = await proposed(EITHER, { "/users/x.id": x.key, "/users/y.id": y.key, "/users/z.id": z.key }, [
      action("GO"),
    ]);
    const answers = await Promise.all([
      sign(id, hash, { "/users/x.id": signCommit(hash, x.identity.seed) }, x),
      sign(id, hash, { "/users/y.id": signCommit(hash, y.identity.seed) }, y),
    ]);
    assert.deepEqual(answers.map((r) => r.statusCode).sort(), [200, 422]);
    const refused = answers.find((r) => r.statusCode === 422)!.json();
    assert.equal(refused.details.reason, "signature_not_counted");
    const kept = await read(id, hash);
    assert.equal(kept.status, "open");
    assert.equal(Object.keys(kept.signatures).length, 1, "only the signature that was taken is stored");
    const done = await sign(id, hash, { "/users/z.id": signCommit(hash, z.identity.seed) }, z);
    assert.equal(done.statusCode, 200);
    assert.equal(done.json().proposal.status, "committed");
  });

  it("stores no second signature of a key under another spelling: anyone could copy one to fill the limit", async () => {
    const { id, hash } = await proposed(DEAL, { "/users/buyer.id": t.owner.key, "/users/seller.id": seller.key }, [
      action("CANCEL"),
    ]);
    const buyerSig = signCommit(hash, t.owner.identity.seed);
    assert.equal((await sign(id, hash, { "/users/buyer.id": buyerSig }, t.owner)).statusCode, 200);
    // A stranger copies the collected signature under the buyer's identity: it adds nothing.
    const copy = await sign(id, hash, { [`ed25519:${t.owner.key}`]: buyerSig }, stranger);
    assert.equal(copy.statusCode, 200);
    assert.equal(copy.json().proposal.status, "open");
    assert.deepEqual(Object.keys(copy.json().proposal.signatures), ["/users/buyer.id"]);
    // Nor do two spellings of one key in one upload: the first is kept.
    const sellerSig = signCommit(hash, seller.identity.seed);
    const done = await sign(id, hash, { "/users/seller.id": sellerSig, [`ed25519:${seller.key}`]: sellerSig }, seller);
    assert.equal(done.statusCode, 200);
    assert.equal(done.json().proposal.status, "committed");
    assert.deepEqual(Object.keys(done.json().proposal.signatures).sort(), ["/users/buyer.id", "/users/seller.id"]);
  });

  it("counts every member of a threshold directory, and nobody outside it", async () => {
    const members = [t.owner, seller, await t.principal()];
    const state: Record<string, unknown> = {};
    members.forEach((m, i) => {
      state[`/signers/signer_${i + 1}.id`] = m.key;
    });
    const { id, hash } = await proposed(TREASURY, state, [action("EXECUTE")]);
    const outsider = await sign(
      id,
      hash,
      { [`ed25519:${stranger.key}`]: signCommit(hash, stranger.identity.seed) },
      stranger,
    );
    assert.equal(outsider.statusCode, 422);
    assert.equal(outsider.json().details.reason, "signature_not_counted");
    const third = await sign(
      id,
      hash,
      { "/signers/signer_3.id": signCommit(hash, members[2]!.identity.seed) },
      stranger,
    );
    assert.equal(third.statusCode, 200);
    assert.equal(third.json().proposal.status, "open");
    const second = await sign(id, hash, { "/signers/signer_1.id": signCommit(hash, t.owner.identity.seed) }, stranger);
    assert.equal(second.json().proposal.status, "committed");
  });
});
