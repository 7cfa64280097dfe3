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
 *
 * A proposal holding such a value (and an object of 100,000 members) is watched from its
 * POST to its completion by a co-signer's signature (watchOnePieces.ts): its row's trip to
 * the store's writer, its reads, its answers and its attestation's verification were each
 * one piece of the event loop.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { signRequest } from "../src/auth/signRequest.js";
import { signAttestation } from "../src/contract/attestation.js";
import { signCommit } from "../src/contract/commitHash.js";
import { buildCommit, genesisData } from "../src/contract/engine.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { PIECE_LIMITS } from "../src/contract/planJsonPieces.js";
import type { HubContext } from "../src/hub/HubContext.js";
import {
  askHealth,
  BIG_VALUE,
  BIG_VALUE_CHARS,
  type Listening,
  listenRestAndRpc,
  NO_WORK_BUDGET,
  notingAppends,
  signedPost,
  storeWith,
} from "./support/liveTestApp.js";
import { genesisFor, type TestApp, testApp } from "./support/testApps.js";
import { type OnePieces, watchOnePieces } from "./support/watchOnePieces.js";

/** A ~15 MB attestation value. */
const BIG = BIG_VALUE;
const BIG_CHARS = BIG_VALUE_CHARS;
/** An object of 100,000 members (~1.6 MB of text), as a proposal's body parses it in slices. */
const WIDE = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`member${i}`, i]));

/**
 * No call listed more names than one piece of a body's parse holds or wrote a text as long
 * as one of BIG's strings; none parsed half the value (the body's parse reads pieces of a
 * megabyte or two, strings whole; a column read in one piece is all 17 MB); no thread
 * message carried more values than a row's columns and a few more (a record holding WIDE
 * carries 100,000).
 */
function assertNoOnePieces(seen: OnePieces): void {
  const over: string[] = [];
  if (seen.keys > PIECE_LIMITS.weight) over.push(`Object.keys listed ${seen.keys} names in one call`);
  if (seen.text >= BIG[0]!.length) over.push(`JSON.stringify wrote ${seen.text} characters in one call`);
  if (seen.parsed >= BIG_CHARS / 2) over.push(`JSON.parse read ${seen.parsed} characters in one call`);
  if (seen.cloned >= 1_000) over.push(`a message between threads carried ${seen.cloned} values`);
  assert.deepEqual(over, []);
}

describe("long attestation values", () => {
  let t: TestApp;
  let live: Listening;
  /** What finished, in order. */
  let order: string[] = [];
  /** Set by a test: what the store does as it reads commits. */
  let onRead: ((phase: "start" | "commit", length: number) => void) | null = null;
  const oracle = generateKeyPair();
  const id = "long-attestation";
  /** The proposal of the last three tests, its attestation and its co-signer. */
  const pid = "long-attested-proposal";
  const cosigner = generateKeyPair();
  let proposed: ReturnType<typeof buildCommit>;
  let proposalAttestation: ReturnType<typeof signAttestation>;
  /** The head after the first test's push. */
  let pushedHead = "";

  before(async () => {
    t = await testApp("rest", {
      limits: { bodyBytes: 17 * 1024 * 1024 },
      workBudgetMs: NO_WORK_BUDGET,
      wrapStore: (store) =>
        storeWith(store, {
          ...notingAppends(() => order),
          saveProposal:
            (own) =>
            (...args) => {
              order.push("save");
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
  /**
   * `post`, its answer parsed once `watch` is stopped: the test's own JSON.parse of a 17 MB
   * answer is not the hub's.
   */
  const watchedPost = async (path: string, body: string, watch: { stop(): void }) => {
    const headers = {
      "content-type": "application/json",
      ...signRequest(t.owner.access.seed, { method: "POST", url: path, body }),
    };
    let res: Response;
    let text: string;
    try {
      res = await fetch(live.restUrl + path, { method: "POST", headers, body });
      text = await res.text();
    } finally {
      watch.stop();
    }
    return { status: res.status, body: JSON.parse(text) as Record<string, unknown> };
  };

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

  it("answers GET /health while a proposal whose attestation holds ~15 MB and a wide object is prepared and stored", async () => {
    // A model asking for a second signer keeps the proposal open: it is stored, not appended.
    const model = `model CoSigned {
  initial open
  open -> open [+NOTE +signed_by(/users/cosigner.id)]
}`;
    const state = { "/users/cosigner.id": cosigner.publicKey.toString("hex") };
    const first = buildCommit(pid, null, genesisData({ model, rules: [], owner: t.owner.key, state }));
    assert.equal((await post(`/contracts/${pid}/push`, JSON.stringify({ commits: [first] }))).status, 200);
    proposalAttestation = signAttestation(
      { contract_id: pid, parent: first.hash, claim: "doc", value: { strings: BIG, wide: WIDE } },
      oracle.seed,
      oracle.publicKey,
    );
    proposed = buildCommit(pid, first.hash, [{ method: "action", value: "NOTE" }], {}, [proposalAttestation]);
    const work = t.hub as unknown as { ctx: HubContext };
    const preparse = work.ctx.work.preparse.bind(work.ctx.work);
    work.ctx.work.preparse = (caller, commits, limits, contractId) => {
      const preparing = preparse(caller, commits, limits, contractId);
      if ((commits[0] as typeof proposed).hash === proposed.hash) void askHealth(live.restUrl, order);
      return preparing;
    };
    const body = JSON.stringify({ commit: proposed });
    order = [];
    // Watched until the answer is read: the proposal is decided twice (in full, then as if
    // every key had signed), its row goes to the store's writer, is read back, and answered.
    const watch = watchOnePieces();
    let answer: Awaited<ReturnType<typeof post>>;
    try {
      answer = await watchedPost(`/contracts/${pid}/proposals`, body, watch);
    } finally {
      work.ctx.work.preparse = preparse;
    }
    order.push("propose");
    assert.equal(answer.status, 201, JSON.stringify(answer.body).slice(0, 300));
    const proposal = answer.body.proposal as { status: string; missing: unknown[]; attestations: unknown[] };
    assert.deepEqual([proposal.status, proposal.missing.length], ["open", 1]);
    assert.deepEqual(proposal.attestations, [proposalAttestation]);
    assert.deepEqual(order, ["health", "save", "propose"]);
    assertNoOnePieces(watch.seen);
    const stored = await work.ctx.store.getProposal(pid, proposed.hash);
    assert.deepEqual(stored?.attestations, [proposalAttestation]);
  });

  it("reads that proposal back and answers it over REST and JSON-RPC in slices", async () => {
    const watch = watchOnePieces();
    let rest: Response;
    let rpc: Response;
    const texts: string[] = [];
    try {
      rest = await fetch(`${live.restUrl}/contracts/${pid}/proposals/${proposed.hash}`);
      texts.push(await rest.text());
      rpc = await fetch(live.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "getProposal",
          params: { contract_id: pid, hash: proposed.hash },
        }),
      });
      texts.push(await rpc.text());
    } finally {
      watch.stop();
    }
    const restBody = JSON.parse(texts[0]!) as { proposal: { attestations: unknown[] } };
    const rpcBody = JSON.parse(texts[1]!) as { result: { proposal: { attestations: unknown[] } } };
    assert.deepEqual([rest.status, rpc.status], [200, 200]);
    assert.deepEqual(restBody.proposal.attestations, [proposalAttestation]);
    assert.deepEqual(rpcBody.result.proposal.attestations, [proposalAttestation]);
    assertNoOnePieces(watch.seen);
  });

  it("completes that proposal when its co-signer signs, its attestation verified in slices", async () => {
    const signature = signCommit(proposed.hash, cosigner.seed);
    const body = JSON.stringify({ signatures: { "/users/cosigner.id": signature } });
    const watch = watchOnePieces();
    const answer = await watchedPost(`/contracts/${pid}/proposals/${proposed.hash}/signatures`, body, watch);
    assert.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 300));
    const proposal = answer.body.proposal as { status: string; attestations: unknown[] };
    assert.equal(proposal.status, "committed");
    assert.deepEqual(proposal.attestations, [proposalAttestation]);
    assert.equal((answer.body.commit as { commit_hash: string }).commit_hash, proposed.hash);
    assertNoOnePieces(watch.seen);
  });
});
