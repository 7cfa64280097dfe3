/**
 * The append of a long push (docs/reliability.md, "hostile load: long appends"): once a push
 * of 10,000 commits is decided, the SQLite store serialises its rows and hands them to the
 * writer thread in slices. In one piece, that took the event loop 45–85 ms (each commit's JSON
 * columns, then one structured clone of the whole batch), and `GET /health` waited.
 *
 * How it is seen, by ordering: `GET /health` is sent as the store's append begins, over a
 * connection opened before; the writer thread's message carrying the append itself (the last
 * one of the handoff, which commits) is noted as it is posted. The answer comes first.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Worker } from "node:worker_threads";
import { signRequest } from "../src/auth/signRequest.js";
import { askHealth, type Listening, listenRestAndRpc, storeWith } from "./support/liveTestApp.js";
import { genesisFor, postsAfter, type TestApp, testApp } from "./support/testApps.js";

const COMMITS = 10_000;

describe("long appends", () => {
  let t: TestApp;
  let live: Listening;
  /** What happened, in order: "health" (answered), "handoff" (the append posted to the writer), "push" (answered). */
  let order: string[] = [];
  const postMessage = Worker.prototype.postMessage;

  before(async () => {
    t = await testApp("rest", {
      wrapStore: (store) =>
        storeWith(store, {
          appendCommits:
            (own) =>
            (...args) => {
              if (args[2].length === COMMITS) void askHealth(live.restUrl, order);
              return own(...args);
            },
        }),
    });
    // Notes the message that carries an append to the SQLite writer thread (it is posted as is).
    Worker.prototype.postMessage = function (this: Worker, value: unknown, transfer?: never) {
      const requests = Array.isArray(value) ? (value as { name?: unknown }[]) : [];
      if (requests.some((r) => r?.name === "appendCommits")) order.push("handoff");
      return postMessage.call(this, value, transfer);
    };
    live = await listenRestAndRpc(t);
    // The probe's connection is open before the push: its answer needs only the loop's turns.
    await askHealth(live.restUrl, []);
  });
  after(async () => {
    Worker.prototype.postMessage = postMessage;
    await live.close();
  });

  it("answers GET /health while the rows of a 10,000-commit push are handed to the writer", async () => {
    const id = "long-append";
    const genesis = genesisFor(id, t.owner);
    const commits = [genesis, ...postsAfter(id, genesis.hash, COMMITS - 1)];
    const path = `/contracts/${id}/push`;
    const body = JSON.stringify({ commits });
    const headers = {
      "content-type": "application/json",
      ...signRequest(t.owner.access.seed, { method: "POST", url: path, body }),
    };
    order = [];
    const res = await fetch(live.restUrl + path, { method: "POST", headers, body });
    const answer = (await res.json()) as Record<string, unknown>;
    order.push("push");
    assert.deepEqual([res.status, answer.pushed], [200, COMMITS]);
    assert.deepEqual(order, ["health", "handoff", "push"]);
    const stored = await t.hub.store.getContract(id);
    assert.equal(stored?.length, COMMITS);
  });
});
