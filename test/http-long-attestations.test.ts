/**
 * A commit whose attestation carries a value of megabytes (docs/reliability.md, "Hostile
 * load"): an attestation's value is any JSON, and its signed message (canonical JSON and
 * SHA-256 of ~15 MB) was computed in one piece by the signature check, its `attestations`
 * column written by one JSON.stringify and, on a cold load, read by one JSON.parse. Now all
 * three run in the hub's shared slices, and `GET /health` is answered in between.
 *
 * How it is seen, by ordering, as in http-long-values.test.ts: `GET /health` is sent as the
 * hub starts to prepare the commit (HeavyWork.preparse wrapped), whose attestation's hash must
 * be done before its signature check; on a cold load, as the store is asked for the log, to
 * come back before the big commit comes out of it. Each answer must come back before the step
 * it was sent ahead of. The oracle is a real ed25519 key and the attestation verifies.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { signAttestation } from "../src/contract/attestation.js";
import { buildCommit, genesisData } from "../src/contract/engine.js";
import { generateKeyPair } from "../src/contract/keys.js";
import type { HubContext } from "../src/hub/HubContext.js";
import {
  askHealth,
  type Listening,
  listenRestAndRpc,
  notingAppends,
  signedPost,
  storeWith,
} from "./support/liveTestApp.js";
import { genesisFor, type TestApp, testApp } from "./support/testApps.js";
import { watchOnePieces } from "./support/watchOnePieces.js";

/** A ~15 MB attestation value with some non-ASCII, in 15 parts of 1 MB. */
const BIG = Array.from({ length: 15 }, (_, i) => `${i}${"x".repeat(1000)}é漢🙂`.repeat(1_000));
const BIG_CHARS = BIG.reduce((n, part) => n + part.length, 0);

describe("long attestation values", () => {
  let t: TestApp;
  let live: Listening;
  /** What finished, in order. */
  let order: string[] = [];
  /** Set by a test: what the store does as it reads commits. */
  let onRead: ((phase: "start" | "commit", length: number) => void) | null = null;
  /** Set by a test: what happens as the store is asked to save a proposal. */
  let atSave: (() => void) | null = null;
  const oracle = generateKeyPair();
  const id = "long-attestation";
  /** The head after the first test's push. */
  let pushedHead = "";

  before(async () => {
    t = await testApp("rest", {
      limits: { bodyBytes: 17 * 1024 * 1024 },
      wrapStore: (store) =>
        storeWith(store, {
          ...notingAppends(() => order),
          saveProposal:
            (own) =>
            (...args) => {
              order.push("save");
              atSave?.();
              return own(...args);
            },
          readCommits: (own) =>
            async function* (...args) {
              onRead?.("start", 0);
              for await (const c of own(...args)) {
                onRead?.("commit", JSON.stringify(c.attestations ?? []).length);
                yield c;
              }
            },
        }),
    });
    live = await listenRestAndRpc(t);
  });
  after(async () => live.close());

  const post = (path: string, body: string) => signedPost(live.restUrl, t.owner.access.seed, path, body);

  it("answers GET /health while the signed message of a ~15 MB attestation value is hashed", async () => {
    const first = genesisFor(id, t.owner);
    const attestation = signAttestation(
      { contract_id: id, parent: first.hash, claim: "doc", value: BIG },
      oracle.seed,
      oracle.publicKey,
    );
    const big = buildCommit(id, first.hash, [{ method: "post", path: "/n.json", value: 1 }], {}, [attestation]);
    const work = t.hub as unknown as { ctx: HubContext };
    const preparse = work.ctx.work.preparse.bind(work.ctx.work);
    work.ctx.work.preparse = (caller, commits, limits, contractId) => {
      const preparing = preparse(caller, commits, limits, contractId);
      if ((commits[0] as typeof big).head.attestations === undefined) return preparing;
      void askHealth(live.restUrl, order);
      if (preparing === undefined) {
        order.push("hashed");
        return undefined;
      }
      return preparing.then(() => void order.push("hashed"));
    };
    order = [];
    // Alone in its push: the genesis goes first, so the push's only commit is the attested one.
    assert.equal((await post(`/contracts/${id}/push`, JSON.stringify({ commits: [first] }))).status, 200);
    order = [];
    const answer = await post(`/contracts/${id}/push`, JSON.stringify({ commits: [big] }));
    order.push("push");
    work.ctx.work.preparse = preparse;
    assert.deepEqual([answer.status, answer.body.pushed, answer.body.head], [200, 1, big.hash]);
    assert.deepEqual(order, ["health", "hashed", "append", "push"]);
    pushedHead = big.hash;
  });

  it("refuses an attestation whose value was changed after signing, big as it is", async () => {
    const head = pushedHead;
    const value = [...BIG];
    const attestation = signAttestation(
      { contract_id: id, parent: head, claim: "doc", value },
      oracle.seed,
      oracle.publicKey,
    );
    value[14] = `${value[14]}!`;
    const commit = buildCommit(id, head, [{ method: "post", path: "/m.json", value: 2 }], {}, [attestation]);
    const answer = await post(`/contracts/${id}/push`, JSON.stringify({ commits: [commit] }));
    assert.equal(answer.status, 422, JSON.stringify(answer.body).slice(0, 300));
    assert.deepEqual(
      [answer.body.code, (answer.body.details as { reason?: string }).reason],
      ["VALIDATION_FAILED", "bad_attestation"],
    );
  });

  it("answers GET /health while a cold load reads the commit holding it", async () => {
    const work = t.hub as unknown as { ctx: HubContext };
    work.ctx.cache.delete(id);
    order = [];
    onRead = (phase, length) => {
      if (phase === "start") void askHealth(live.restUrl, order);
      else if (length > BIG_CHARS) {
        // Only the read is sliced here: the replay after it touches no attestation value, so
        // a second /health sent now races the answer (Node 24 answers the page first).
        onRead = null;
        order.push("read");
      }
    };
    const res = await fetch(`${live.restUrl}/contracts/${id}/log?limit=1`);
    onRead = null;
    await res.text();
    order.push("loaded");
    assert.equal(res.status, 200);
    assert.deepEqual(order, ["health", "read", "loaded"]);
  });

  it("answers GET /health while a commit given as fields, its attestation holding ~15 MB, is prepared and stored", async () => {
    // The field form's commit gets its parent under the contract's lock, and its attestation,
    // signed over that parent, was hashed there with the commit, in one piece.
    const head = pushedHead;
    const attestation = signAttestation(
      { contract_id: id, parent: head, claim: "doc", value: BIG },
      oracle.seed,
      oracle.publicKey,
    );
    const work = t.hub as unknown as { ctx: HubContext };
    const preparse = work.ctx.work.preparse.bind(work.ctx.work);
    work.ctx.work.preparse = (caller, commits, limits, contractId) => {
      const preparing = preparse(caller, commits, limits, contractId);
      if ((commits[0] as { data: Array<{ path?: string }> }).data[0]?.path === "/fields.json")
        void askHealth(live.restUrl, order);
      return preparing;
    };
    const body = JSON.stringify({
      contract_id: id,
      method: "post",
      path: "/fields.json",
      value: 3,
      parent: head,
      attestations: [attestation],
    });
    order = [];
    const watch = watchOnePieces();
    let answer: Awaited<ReturnType<typeof post>>;
    try {
      answer = await post(`/contracts/${id}/commits`, body);
    } finally {
      watch.stop();
      work.ctx.work.preparse = preparse;
    }
    order.push("post");
    assert.equal(answer.status, 201, JSON.stringify(answer.body).slice(0, 300));
    assert.deepEqual(order, ["health", "append", "post"]);
    assert.ok(watch.seen.text < BIG[0]!.length, `JSON.stringify wrote ${watch.seen.text} characters in one call`);
    const stored = await work.ctx.store.getCommitAt(id, answer.body.index as number);
    assert.deepEqual(stored?.attestations, [attestation]);
    pushedHead = answer.body.commit_hash as string;
  });

  it("answers GET /health while a proposal whose attestation holds ~15 MB is prepared and stored", async () => {
    // A model asking for a second signer keeps the proposal open: it is stored, not appended.
    const cosigner = generateKeyPair();
    const model = `model CoSigned {
  initial open
  open -> open [+NOTE +signed_by(/users/cosigner.id)]
}`;
    const pid = "long-attested-proposal";
    const state = { "/users/cosigner.id": cosigner.publicKey.toString("hex") };
    const first = buildCommit(pid, null, genesisData({ model, rules: [], owner: t.owner.key, state }));
    assert.equal((await post(`/contracts/${pid}/push`, JSON.stringify({ commits: [first] }))).status, 200);
    const attestation = signAttestation(
      { contract_id: pid, parent: first.hash, claim: "doc", value: BIG },
      oracle.seed,
      oracle.publicKey,
    );
    const proposed = buildCommit(pid, first.hash, [{ method: "action", value: "NOTE" }], {}, [attestation]);
    const work = t.hub as unknown as { ctx: HubContext };
    const preparse = work.ctx.work.preparse.bind(work.ctx.work);
    work.ctx.work.preparse = (caller, commits, limits, contractId) => {
      const preparing = preparse(caller, commits, limits, contractId);
      if ((commits[0] as typeof proposed).hash === proposed.hash) void askHealth(live.restUrl, order);
      return preparing;
    };
    const body = JSON.stringify({ commit: proposed });
    order = [];
    // Watched until the proposal is saved: it is decided by then, twice (in full, then as
    // if every key had signed), and its attestation was verified for each judgement.
    const watch = watchOnePieces();
    atSave = () => watch.stop();
    let answer: Awaited<ReturnType<typeof post>>;
    try {
      answer = await post(`/contracts/${pid}/proposals`, body);
    } finally {
      watch.stop();
      atSave = null;
      work.ctx.work.preparse = preparse;
    }
    order.push("propose");
    assert.equal(answer.status, 201, JSON.stringify(answer.body).slice(0, 300));
    const proposal = answer.body.proposal as { status: string; missing: unknown[] };
    assert.deepEqual([proposal.status, proposal.missing.length], ["open", 1]);
    assert.deepEqual(order, ["health", "save", "propose"]);
    assert.ok(watch.seen.text < BIG[0]!.length, `JSON.stringify wrote ${watch.seen.text} characters in one call`);
    const stored = await work.ctx.store.getProposal(pid, proposed.hash);
    assert.deepEqual(stored?.attestations, [attestation]);
  });
});
