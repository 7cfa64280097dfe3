/**
 * The bus announces each change of a proposal once and in order: a repeat of what it announced
 * (the same change reaching an instance from its own work and from a notice read late), or a
 * state older than it (a read begun before the change), reaches no listener.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ProposalView } from "../src/api/responses.js";
import { EventBus } from "../src/hub/EventBus.js";

const HASH = "a".repeat(64);

function view(status: ProposalView["status"], signers: string[], lifetime = { created: 100, expires: 200 }) {
  return {
    hash: HASH,
    contract_id: "c",
    parent: "p".repeat(64),
    data: [],
    signatures: Object.fromEntries(signers.map((s) => [s, `sig-${s}`])),
    status,
    missing: [],
    proposer: "ed25519:00",
    created_at: lifetime.created,
    expires_at: lifetime.expires,
  } satisfies ProposalView;
}

/** The [status, signers] a listener of contract `c` hears for `views` published in order. */
function heard(views: ProposalView[], bus = new EventBus()): [string, string[]][] {
  const out: [string, string[]][] = [];
  const stop = bus.onProposal("c", (p) => {
    const v = p as ProposalView;
    out.push([v.status, Object.keys(v.signatures)]);
  });
  for (const v of views) bus.publishProposal("c", v);
  stop();
  return out;
}

describe("proposal events: each change once, in order", () => {
  it("drops a repeat of the last state announced", () => {
    assert.deepEqual(
      heard([view("open", ["x"]), view("open", ["x"]), view("committed", ["x", "y"]), view("committed", ["x", "y"])]),
      [
        ["open", ["x"]],
        ["committed", ["x", "y"]],
      ],
    );
  });

  it("drops a state older than the one announced: fewer signatures, open or stale after committed", () => {
    assert.deepEqual(
      heard([
        view("open", ["x", "y"]),
        view("open", ["x"]),
        view("committed", ["x", "y"]),
        view("open", ["x"]),
        view("stale", ["x"]),
      ]),
      [
        ["open", ["x", "y"]],
        ["committed", ["x", "y"]],
      ],
    );
    assert.deepEqual(heard([view("stale", ["x"]), view("expired", ["x"]), view("open", ["x"])]), [["stale", ["x"]]]);
    assert.deepEqual(heard([view("withdrawn", ["x"]), view("stale", ["x"]), view("withdrawn", ["x"])]), [
      ["withdrawn", ["x"]],
    ]);
  });

  it("announces each change forward: a signature added, expired then stale, withdrawn then proposed again", () => {
    assert.deepEqual(heard([view("open", []), view("open", ["x"]), view("expired", ["x"]), view("stale", ["x"])]), [
      ["open", []],
      ["open", ["x"]],
      ["expired", ["x"]],
      ["stale", ["x"]],
    ]);
    // Proposed again within the second (the same lifetime), or later (a new one).
    assert.deepEqual(
      heard([
        view("withdrawn", ["x"]),
        view("open", ["y"]),
        view("expired", ["y"]),
        view("open", [], { created: 300, expires: 400 }),
        view("expired", ["y"]),
      ]),
      [
        ["withdrawn", ["x"]],
        ["open", ["y"]],
        ["expired", ["y"]],
        ["open", []],
      ],
    );
  });

  it("forgets a contract's proposals when its last listener leaves, and remembers nothing while none listens", () => {
    const bus = new EventBus();
    bus.publishProposal("c", view("committed", ["x"]));
    assert.deepEqual(heard([view("open", ["x"])], bus), [["open", ["x"]]]);
    assert.deepEqual(heard([view("open", ["x"])], bus), [["open", ["x"]]]);
  });
});
