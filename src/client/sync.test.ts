/**
 * pushInBatches against a real hub over HTTP on loopback: requests overlap up to the window,
 * a request that overtakes its predecessor is sent again, and a refused request stops the
 * push with its own error while what came before it stays stored.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { genesisFor, postsAfter, type TestApp, testApp } from "../../test/support/testApps.js";
import type { WireCommit } from "../contract/Commit.js";
import { ContractError } from "../contract/ContractError.js";
import { buildCommit } from "../contract/engine.js";
import { HubClient } from "./HubClient.js";
import { pushInBatches } from "./sync.js";

/** A client that counts its push requests and how many were on their way at once. */
class CountingClient extends HubClient {
  requests = 0;
  open = 0;
  maxOpen = 0;
  /**
   * Requests to hold back (by 0-based number) until another one has been answered: an order
   * of arrival the test decides, where a fixed delay would lose the race on a slow machine.
   */
  holdUntilAnswered = new Map<number, number>();
  /** The first commit of each request, in the order they were sent. */
  sent: string[] = [];
  readonly #answered = new Map<number, { promise: Promise<void>; resolve: () => void }>();

  #answer(n: number) {
    let entry = this.#answered.get(n);
    if (entry === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      entry = { promise, resolve };
      this.#answered.set(n, entry);
    }
    return entry;
  }

  override async push(id: string, commits: WireCommit[]): Promise<{ pushed: number; head: string }> {
    const n = this.requests++;
    this.sent.push(commits[0]!.hash);
    this.open++;
    this.maxOpen = Math.max(this.maxOpen, this.open);
    try {
      const after = this.holdUntilAnswered.get(n);
      if (after !== undefined) await this.#answer(after).promise;
      return await super.push(id, commits);
    } finally {
      this.open--;
      this.#answer(n).resolve();
    }
  }
}

let t: TestApp;
let url: string;

function client(): CountingClient {
  return new CountingClient({ url, accessKey: t.owner.access.seed, retries: 0 });
}

/** A new contract's genesis and `n` posts after it. */
function history(n: number, tag: string): { id: string; commits: WireCommit[] } {
  const id = `sync-${tag}-${Math.random().toString(36).slice(2, 10)}`;
  const g = genesisFor(id, t.owner);
  return { id, commits: [g, ...postsAfter(id, g.hash, n, tag)] };
}

async function storedHashes(id: string): Promise<string[]> {
  const page = await new HubClient({ url, accessKey: t.owner.access.seed }).pull(id, { limit: 1000 });
  return page.commits.map((c) => c.hash);
}

describe("pushInBatches", () => {
  before(async () => {
    t = await testApp("rest");
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(() => t.close());

  it("keeps up to `inFlight` requests on their way and stores every commit in order", async () => {
    const { id, commits } = history(23, "w");
    const c = client();
    const batches: { pushed: number; sent: number }[] = [];
    const result = await pushInBatches(c, id, commits, {
      batchSize: 4,
      inFlight: 3,
      onBatch: (b) => batches.push({ pushed: b.pushed, sent: b.sent }),
    });
    assert.deepEqual(result, { pushed: 24, head: commits.at(-1)!.hash });
    // Every batch went out, in order. Requests on separate connections may still arrive out of
    // order and be sent again (the next test), so the count of requests is not fixed.
    assert.deepEqual(
      [...new Set(c.sent)],
      [0, 4, 8, 12, 16, 20].map((i) => commits[i]!.hash),
    );
    assert.equal(c.maxOpen, 3);
    assert.deepEqual(
      batches.map((b) => b.sent),
      [4, 8, 12, 16, 20, 24],
    );
    assert.ok(batches.every((b) => b.pushed === 4));
    assert.deepEqual(
      await storedHashes(id),
      commits.map((x) => x.hash),
    );
  });

  it("sends a request again when it overtook its predecessor, and sends nothing new until it is answered", async () => {
    const { id, commits } = history(29, "o");
    const c = client();
    // The first request waits until the second has been refused as stale.
    c.holdUntilAnswered.set(0, 1);
    const result = await pushInBatches(c, id, commits, { batchSize: 6, inFlight: 2 });
    assert.deepEqual(result, { pushed: 30, head: commits.at(-1)!.hash });
    // The second batch went out again before the third went out at all: sent beside the
    // second one's second try, the third could overtake that in turn.
    const firsts = [0, 6, 12].map((i) => commits[i]!.hash);
    assert.deepEqual(c.sent.slice(0, 4), [firsts[0], firsts[1], firsts[1], firsts[2]]);
    assert.deepEqual(
      await storedHashes(id),
      commits.map((x) => x.hash),
    );
  });

  it("stops at a refused request with its error; the requests before it stay stored", async () => {
    const { id, commits } = history(11, "f");
    // The 7th commit (in the second request) does not extend the 6th.
    commits[6] = buildCommit(id, commits[4]!.hash, [{ method: "post", path: "/notes/x.text", value: "x" }]);
    const c = client();
    const batches: number[] = [];
    const err = await pushInBatches(c, id, commits, {
      batchSize: 4,
      inFlight: 2,
      onBatch: (b) => batches.push(b.sent),
    }).then(
      () => assert.fail("the push succeeded"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ContractError);
    assert.equal(err.code, "CONFLICT");
    assert.equal(err.details?.reason, "stale_parent");
    assert.equal(err.details?.index, 2, "the refused commit's place in its request");
    assert.deepEqual(batches, [4]);
    assert.equal(c.open, 0, "no request is left on its way");
    assert.deepEqual(
      await storedHashes(id),
      commits.slice(0, 4).map((x) => x.hash),
    );
  });
});
