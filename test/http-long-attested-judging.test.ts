/**
 * A commit whose attestation holds a big value, on a contract whose model guards transitions
 * with `oracle_attests` (docs/reliability.md, "Hostile load"). Every transition leaving the
 * current state is judged, so the rule's value was compared with the attestation's whole
 * canonical text, written in one piece on the event loop: an object of 400,000 members had
 * its names listed and sorted at once, 15 MB of strings were each escaped by one
 * JSON.stringify. Now a value whose text is longer than the rule's is unequal to it without
 * a look past that length.
 *
 * How it is seen, as the hostile-load tests see it: `GET /health` is sent as the hub starts
 * to prepare the commit and must come back before its append; and, while the push runs, the
 * process's `Object.keys` and `JSON.stringify` are watched (called through, not replaced):
 * no call may list more names than one piece of the body's parse holds, or write as long a
 * text as one of the value's strings. The sliced paths (the attestation's hash, the store's row) never do; the
 * one-piece comparison did both. The oracle is a real ed25519 key and the attestation verifies.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { signAttestation } from "../src/contract/attestation.js";
import { buildCommit } from "../src/contract/engine.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { PIECE_LIMITS } from "../src/contract/planJsonPieces.js";
import type { HubContext } from "../src/hub/HubContext.js";
import {
  askHealth,
  BIG_VALUE,
  type Listening,
  listenRestAndRpc,
  NO_WORK_BUDGET,
  notingAppends,
  signedPost,
  storeWith,
} from "./support/liveTestApp.js";
import { type TestApp, testApp } from "./support/testApps.js";
import { watchOnePieces } from "./support/watchOnePieces.js";

/** NOTE is allowed unless the oracle attests "revoked"; PAYOUT needs it to attest "yes". */
const MODEL = `model Attested {
  initial open
  open -> open [+NOTE -oracle_attests(/oracle.id, "doc", "revoked")]
  open -> paid [+PAYOUT +oracle_attests(/oracle.id, "doc", "yes")]
  paid -> paid [+NOTE]
}`;

/** An object of 400,000 members (~6 MB of text). */
const WIDE = Object.fromEntries(Array.from({ length: 400_000 }, (_, i) => [`member${i}`, i]));
/** ~15 MB of strings. */
const LONG = BIG_VALUE;

describe("long attested values judged by oracle_attests", () => {
  let t: TestApp;
  let live: Listening;
  /** What finished, in order. */
  let order: string[] = [];
  const oracle = generateKeyPair();
  let id = "";
  let head = "";

  before(async () => {
    t = await testApp("rest", {
      limits: { bodyBytes: 17 * 1024 * 1024 },
      workBudgetMs: NO_WORK_BUDGET,
      wrapStore: (store) =>
        storeWith(
          store,
          notingAppends(() => order),
        ),
    });
    live = await listenRestAndRpc(t);
    ({ id, head } = await t.contract({
      model: MODEL,
      rules: [],
      state: { "/oracle.id": oracle.publicKey.toString("hex") },
    }));
  });
  after(async () => live.close());

  /** Pushes a commit of `action` on the head whose attestation of claim "doc" holds `value`; its answer and what was seen. */
  async function pushAttested(action: string, value: unknown) {
    const attestation = signAttestation(
      { contract_id: id, parent: head, claim: "doc", value },
      oracle.seed,
      oracle.publicKey,
    );
    const commit = buildCommit(id, head, [{ method: "action", value: action }], {}, [attestation]);
    const body = JSON.stringify({ commits: [commit] });
    const work = t.hub as unknown as { ctx: HubContext };
    const preparse = work.ctx.work.preparse.bind(work.ctx.work);
    work.ctx.work.preparse = (caller, commits, limits, contractId) => {
      const preparing = preparse(caller, commits, limits, contractId);
      if ((commits[0] as typeof commit).hash === commit.hash) void askHealth(live.restUrl, order);
      return preparing;
    };
    order = [];
    const watch = watchOnePieces();
    let answer: Awaited<ReturnType<typeof signedPost>>;
    try {
      answer = await signedPost(live.restUrl, t.owner.access.seed, `/contracts/${id}/push`, body);
    } finally {
      watch.stop();
      work.ctx.work.preparse = preparse;
    }
    order.push("push");
    assert.deepEqual([answer.status, answer.body.head], [200, commit.hash], JSON.stringify(answer.body).slice(0, 300));
    head = commit.hash;
    return { seen: watch.seen, state: await t.hub.getState(t.owner.caller, id) };
  }

  it("judges an attestation of an object of 400,000 members without listing its names in one piece", async () => {
    const { seen } = await pushAttested("NOTE", WIDE);
    assert.deepEqual(order, ["health", "append", "push"]);
    // The body's parser lists the names of each piece it parsed: fewer than a piece weighs.
    assert.ok(seen.keys <= PIECE_LIMITS.weight, `Object.keys listed ${seen.keys} names in one call`);
  });

  it("judges an attestation of 15 MB of strings without writing one of them in one piece", async () => {
    const { seen } = await pushAttested("NOTE", LONG);
    assert.deepEqual(order, ["health", "append", "push"]);
    assert.ok(seen.text < LONG[0]!.length, `JSON.stringify wrote ${seen.text} characters in one call`);
  });

  it("still takes the transition whose attested value is the rule's", async () => {
    const before = await pushAttested("NOTE", { doc: "big enough to be compared as text" });
    assert.equal(before.state.current_state, "open");
    const { state } = await pushAttested("PAYOUT", "yes");
    assert.equal(state.current_state, "paid");
  });
});
