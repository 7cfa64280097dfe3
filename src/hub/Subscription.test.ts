/**
 * Live fan-out yields (docs/security.md, "Hostile load"): each live event of a subscription
 * is preceded by the hub's tick, so one commit offered to thousands of subscriptions is
 * delivered in slices instead of one chain of microtasks. Counted in ticks, never in time.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CommitEvent } from "../api/responses.js";
import type { StoredCommit } from "../contract/StoredCommit.js";
import type { StateView } from "../contract/stateView.js";
import { Subscription } from "./Subscription.js";

const VIEW: StateView = { current_state: "", current_states: [], valid_actions: [], commit_count: 0, head: "" };

function stored(index: number): StoredCommit {
  const hash = index.toString(16).padStart(64, "0");
  return { index, hash, parent: null, data: [], signatures: {}, timestamp: 1, signers: [] };
}

async function* nothing(): AsyncIterable<CommitEvent> {}

describe("Subscription: live events", () => {
  it("awaits the tick before each live event, and delivers them in order exactly once", async () => {
    const events: number[] = [];
    let ticks = 0;
    const subs = Array.from(
      { length: 50 },
      () =>
        new Subscription(
          "c",
          0,
          0,
          (e) => events.push(e.commit.index),
          nothing,
          (err) => assert.fail(String(err)),
          null,
          () => {},
          async () => {
            ticks++;
            await new Promise((r) => setImmediate(r));
          },
        ),
    );
    for (const index of [0, 1, 2])
      for (const sub of subs) sub.offer({ contractId: "c", stored: stored(index), view: VIEW });
    while (events.length < 150) await new Promise((r) => setImmediate(r));
    assert.equal(ticks, 150);
    assert.equal(events.length, 150);
    // Per subscription in log order: the first 50 deliveries are index 0, and so on.
    assert.deepEqual(
      [0, 1, 2].map((i) => events.filter((e) => e === i).length),
      [50, 50, 50],
    );
  });

  it("a subscription closed while it waits for its turn delivers nothing more", async () => {
    const events: number[] = [];
    let release: () => void = () => {};
    const sub = new Subscription(
      "c",
      0,
      0,
      (e) => events.push(e.commit.index),
      nothing,
      (err) => assert.fail(String(err)),
      null,
      () => {},
      () => new Promise<void>((r) => (release = r)),
    );
    sub.offer({ contractId: "c", stored: stored(0), view: VIEW });
    sub.close();
    release();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(events, []);
  });
});
