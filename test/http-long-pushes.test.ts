/**
 * A long push (docs/security.md, "Hostile load: expensive work"): its shape checks and its
 * decisions yield to the event loop in the hub's shared slices. They ran in one go each, so a
 * push of 10,000 commits held the event loop 0.5–1 s (shape checks and decisions about
 * 0.3 s each on the shared test machine) and `GET /health` waited as long.
 *
 * How it is seen, by ordering: `GET /health` is sent as the hub's push begins (Hub.push
 * wrapped), and the store's append of the pushed commits (which comes after every shape check
 * and decision) notes whether its answer had come back by then.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import {
  askHealth,
  listenRestAndRpc,
  NO_WORK_BUDGET,
  notingAppends,
  signedPost,
  storeWith,
} from "./support/liveTestApp.js";
import { genesisFor, postsAfter, type TestApp, testApp } from "./support/testApps.js";

/** Commits of one push: enough work for many slices, far under the limits. */
const COMMITS = 5_000;

describe("long pushes", () => {
  let t: TestApp;
  let rpc: FastifyInstance;
  let restUrl: string;
  let rpcUrl: string;
  /** What finished, in order: "health", "append" and "push". */
  let order: string[] = [];

  before(async () => {
    // The store notes each append of commits (what follows a push's checks and decisions).
    t = await testApp("rest", {
      workBudgetMs: NO_WORK_BUDGET,
      wrapStore: (store) =>
        storeWith(
          store,
          notingAppends(() => order),
        ),
    });
    // `GET /health` is sent as the hub's push begins.
    const push = t.hub.push.bind(t.hub);
    t.hub.push = (...args: Parameters<typeof push>) => {
      void askHealth(restUrl, order);
      return push(...args);
    };
    ({ restUrl, rpcUrl, rpc } = await listenRestAndRpc(t));
  });
  after(async () => {
    await rpc.close();
    await t.close();
  });

  const post = (url: string, path: string, body: string) => signedPost(url, t.owner.access.seed, path, body);

  it("answers GET /health while a push of a new contract is checked and decided (REST)", async () => {
    const id = "long-push-new";
    const genesis = genesisFor(id, t.owner);
    const commits = [genesis, ...postsAfter(id, genesis.hash, COMMITS - 1)];
    order = [];
    const answer = await post(restUrl, `/contracts/${id}/push`, JSON.stringify({ commits }));
    order.push("push");
    assert.deepEqual([answer.status, answer.body.pushed, answer.body.head], [200, COMMITS, commits.at(-1)!.hash]);
    assert.deepEqual(order, ["health", "append", "push"]);
  });

  it("answers GET /health while a push onto a known contract is checked and decided (JSON-RPC)", async () => {
    const { id, head } = await t.contract();
    const commits = postsAfter(id, head, COMMITS);
    order = [];
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "push", params: { contract_id: id, commits } });
    const answer = await post(rpcUrl, "/", body);
    order.push("push");
    assert.deepEqual(answer.body.result, { pushed: COMMITS, head: commits.at(-1)!.hash });
    assert.deepEqual(order, ["health", "append", "push"]);
  });
});
