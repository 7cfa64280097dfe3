/**
 * Events on /ws carrying a value of megabytes (docs/reliability.md, "Hostile load"): a commit
 * whose value is ~15 MB and a proposal whose attestation is. A commit event's log entry was
 * written by one JSON.stringify (shared by the subscribers); a proposal event by one
 * JSON.stringify of the whole message per subscriber. Now both texts are written once, in
 * the hub's shared slices when big, and a socket sends its events in order while one is
 * being written.
 *
 * Watched with watchOnePieces.ts from the request to the last subscriber's event: no call
 * writes one of BIG's strings whole. (The subscribers here are in this process, so the
 * parses of the events they receive are seen too; only writes are asserted.)
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ProposalView } from "../src/api/responses.js";
import { type CommitNotification, HubSocket, type ProposalNotification } from "../src/client/HubSocket.js";
import { signAttestation } from "../src/contract/attestation.js";
import { signCommit } from "../src/contract/commitHash.js";
import { buildCommit, genesisData } from "../src/contract/engine.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { BIG_VALUE, type Listening, listenRestAndRpc, NO_WORK_BUDGET, signedPost } from "./support/liveTestApp.js";
import { genesisFor, type TestApp, testApp } from "./support/testApps.js";
import { type OnePieces, watchOnePieces } from "./support/watchOnePieces.js";

/** Subscribers of each contract: the text of an event must not be written once for each. */
const SUBSCRIBERS = 3;

/** No call wrote, or encoded into bytes, a text as long as one of BIG_VALUE's strings. */
function assertNoWholeWrite(seen: OnePieces): void {
  const over: string[] = [];
  if (seen.text >= BIG_VALUE[0]!.length) over.push(`JSON.stringify wrote ${seen.text} characters in one call`);
  if (seen.encoded >= BIG_VALUE[0]!.length) over.push(`a text of ${seen.encoded} characters was encoded in one call`);
  assert.deepEqual(over, []);
}

/** Resolves once every list holds `n` entries; fails rather than hang. */
async function untilEach(lists: unknown[][], n: number): Promise<void> {
  for (let i = 0; lists.some((l) => l.length < n); i++) {
    if (i > 3000) assert.fail(`expected ${n} events each, got ${lists.map((l) => l.length).join(", ")}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("events holding long values on /ws", { timeout: 240_000 }, () => {
  let t: TestApp;
  let live: Listening;
  const sockets: HubSocket[] = [];
  const oracle = generateKeyPair();
  const cosigner = generateKeyPair();

  before(async () => {
    t = await testApp("rest", { limits: { bodyBytes: 17 * 1024 * 1024 }, workBudgetMs: NO_WORK_BUDGET });
    live = await listenRestAndRpc(t);
  });
  after(async () => {
    for (const s of sockets) s.close();
    await live.close();
  });

  const post = (path: string, body: string | Uint8Array) => signedPost(live.restUrl, t.owner.access.seed, path, body);

  /** SUBSCRIBERS sockets subscribed to `id`, each with its commit and proposal events in one list, in arrival order. */
  async function subscribers(id: string): Promise<Array<Array<CommitNotification | ProposalNotification>>> {
    const lists: Array<Array<CommitNotification | ProposalNotification>> = [];
    for (let i = 0; i < SUBSCRIBERS; i++) {
      const socket = await HubSocket.connect(live.restUrl);
      sockets.push(socket);
      const events: Array<CommitNotification | ProposalNotification> = [];
      await socket.subscribe(id, (e) => events.push(e), { onProposal: (e) => events.push(e) });
      lists.push(events);
    }
    return lists;
  }

  it("sends a commit holding ~15 MB to every subscriber, written once in slices, and the next commit after it", async () => {
    const id = "long-event-values";
    const first = genesisFor(id, t.owner);
    assert.equal((await post(`/contracts/${id}/push`, JSON.stringify({ commits: [first] }))).status, 200);
    const lists = await subscribers(id);
    const big = buildCommit(id, first.hash, [{ method: "post", path: "/big.json", value: BIG_VALUE }]);
    const small = buildCommit(id, big.hash, [{ method: "post", path: "/small.json", value: 1 }]);
    // Written and encoded before the watch: the test's own texts are not the hub's.
    const bodies = [big, small].map((c) => Buffer.from(JSON.stringify({ commits: [c] })));
    const watch = watchOnePieces();
    try {
      // Two pushes in a row: the small commit's event is ready at once and must wait for the big one's.
      for (const body of bodies) assert.equal((await post(`/contracts/${id}/push`, body)).status, 200);
      await untilEach(lists, 2);
    } finally {
      watch.stop();
    }
    assertNoWholeWrite(watch.seen);
    for (const events of lists) {
      const commits = events as CommitNotification[];
      assert.deepEqual(
        commits.map((e) => [e.contract_id, e.commit.index, e.commit.hash]),
        [
          [id, 1, big.hash],
          [id, 2, small.hash],
        ],
      );
      assert.deepEqual(commits[0]!.commit.value, BIG_VALUE);
    }
  });

  it("sends a proposal whose attestation holds ~15 MB to every subscriber, written once in slices, and its completion after it", async () => {
    const id = "long-event-proposal";
    const model = `model CoSigned {
  initial open
  open -> open [+NOTE +signed_by(/users/cosigner.id)]
}`;
    const state = { "/users/cosigner.id": cosigner.publicKey.toString("hex") };
    const first = buildCommit(id, null, genesisData({ model, rules: [], owner: t.owner.key, state }));
    assert.equal((await post(`/contracts/${id}/push`, JSON.stringify({ commits: [first] }))).status, 200);
    const lists = await subscribers(id);
    const attestation = signAttestation(
      { contract_id: id, parent: first.hash, claim: "doc", value: BIG_VALUE },
      oracle.seed,
      oracle.publicKey,
    );
    const proposed = buildCommit(id, first.hash, [{ method: "action", value: "NOTE" }], {}, [attestation]);
    const body = Buffer.from(JSON.stringify({ commit: proposed }));
    const signature = signCommit(proposed.hash, cosigner.seed);
    const statuses: number[] = [];
    const watch = watchOnePieces();
    try {
      statuses.push((await post(`/contracts/${id}/proposals`, body)).status);
      // Signed at once: the completion's events are ready while the first event may still be written.
      const signatures = `{"signatures":{"/users/cosigner.id":"${signature}"}}`;
      statuses.push((await post(`/contracts/${id}/proposals/${proposed.hash}/signatures`, signatures)).status);
      await untilEach(lists, 3);
    } finally {
      watch.stop();
    }
    assert.deepEqual(statuses, [201, 200]);
    assertNoWholeWrite(watch.seen);
    for (const events of lists) {
      const proposals = events.filter((e): e is ProposalNotification => "proposal" in e);
      const commits = events.filter((e): e is CommitNotification => "commit" in e);
      assert.deepEqual(
        proposals.map((e) => [e.contract_id, e.proposal.hash, e.proposal.status]),
        [
          [id, proposed.hash, "open"],
          [id, proposed.hash, "committed"],
        ],
      );
      // The open proposal's event comes before anything its completion caused.
      assert.equal(events[0], proposals[0]);
      assert.deepEqual(
        commits.map((e) => [e.commit.index, e.commit.hash]),
        [[1, proposed.hash]],
      );
      for (const p of proposals) assert.deepEqual((p.proposal as ProposalView).attestations, [attestation]);
    }
  });
});
