/**
 * A commit holding one value of megabytes (docs/reliability.md, "Hostile load"): its hash
 * (canonical JSON and SHA-256 of ~15 MB) and, on a cold load, the parse of its stored row
 * held the event loop 50–110 ms each in one piece. Now both are cut into the hub's shared
 * slices, and `GET /health` is answered in between.
 *
 * How it is seen, by ordering: `GET /health` is sent as the hub starts to prepare the big
 * commit (HeavyWork.preparse wrapped), whose hash must be done before its shape check; and,
 * on a cold load, as the store is asked for the log, and again as the big commit comes out
 * of the store. Each answer must come back before the step it was sent ahead of. A commit given
 * as fields (POST /contracts/:id/commits) is hashed under the contract's lock: `GET /health`
 * sent as it is prepared must come back before its append.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { buildCommit } from "../src/contract/engine.js";
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

/** A ~15 MB value pushed as a document. */
const BIG = BIG_VALUE;
const BIG_CHARS = BIG_VALUE_CHARS;

describe("long values", () => {
  let t: TestApp;
  let live: Listening;
  /** What finished, in order. */
  let order: string[] = [];
  /** Set by a test: what the store does as it reads commits. */
  let onRead: ((phase: "start" | "commit", length: number) => void) | null = null;

  before(async () => {
    t = await testApp("rest", {
      limits: { bodyBytes: 17 * 1024 * 1024 },
      workBudgetMs: NO_WORK_BUDGET,
      wrapStore: (store) =>
        storeWith(store, {
          ...notingAppends(() => order),
          readCommits: (own) =>
            async function* (...args) {
              onRead?.("start", 0);
              for await (const c of own(...args)) {
                onRead?.("commit", JSON.stringify(c.data).length);
                yield c;
              }
            },
        }),
    });
    live = await listenRestAndRpc(t);
  });
  after(async () => live.close());

  const post = (path: string, body: string) => signedPost(live.restUrl, t.owner.access.seed, path, body);

  const id = "long-value";

  it("answers GET /health while the hash of a pushed commit holding a ~15 MB value is computed", async () => {
    const first = genesisFor(id, t.owner);
    const big = buildCommit(id, first.hash, [{ method: "post", path: "/docs/big.json", value: BIG }]);
    const work = t.hub as unknown as { ctx: HubContext };
    const preparse = work.ctx.work.preparse.bind(work.ctx.work);
    work.ctx.work.preparse = (caller, commits, limits, contractId) => {
      const preparing = preparse(caller, commits, limits, contractId);
      if ((commits[0] as typeof big).data[0]?.path !== "/docs/big.json") return preparing;
      void askHealth(live.restUrl, order);
      if (preparing === undefined) {
        order.push("hashed");
        return undefined;
      }
      return preparing.then(() => void order.push("hashed"));
    };
    order = [];
    const answer = await post(`/contracts/${id}/push`, JSON.stringify({ commits: [first, big] }));
    order.push("push");
    work.ctx.work.preparse = preparse;
    assert.deepEqual([answer.status, answer.body.pushed, answer.body.head], [200, 2, big.hash]);
    assert.deepEqual(order, ["health", "hashed", "append", "push"]);
  });

  it("answers GET /health while a cold load reads and replays the commit holding it", async () => {
    const work = t.hub as unknown as { ctx: HubContext };
    work.ctx.cache.delete(id);
    order = [];
    onRead = (phase, length) => {
      if (phase === "start") void askHealth(live.restUrl, order);
      else if (length > BIG_CHARS) {
        // Once: the log page's own read afterwards is not watched.
        onRead = null;
        order.push("read");
        void askHealth(live.restUrl, order);
      }
    };
    const res = await fetch(`${live.restUrl}/contracts/${id}/log?limit=1`);
    onRead = null;
    await res.text();
    order.push("loaded");
    assert.equal(res.status, 200);
    assert.deepEqual(order, ["health", "read", "health", "loaded"]);
  });

  it("answers GET /health while the hash of a commit given as fields, holding a ~15 MB value, is computed", async () => {
    // The field form's commit is built, and its parent known, only under the contract's lock:
    // its hash was computed there in one piece, so the append came before any other request.
    const work = t.hub as unknown as { ctx: HubContext };
    const preparse = work.ctx.work.preparse.bind(work.ctx.work);
    work.ctx.work.preparse = (caller, commits, limits, contractId) => {
      const preparing = preparse(caller, commits, limits, contractId);
      if ((commits[0] as { data: Array<{ path?: string }> }).data[0]?.path === "/docs/fields.json") {
        void askHealth(live.restUrl, order);
      }
      return preparing;
    };
    order = [];
    const body = JSON.stringify({ contract_id: id, method: "post", path: "/docs/fields.json", value: BIG });
    const answer = await post(`/contracts/${id}/commits`, body);
    order.push("post");
    work.ctx.work.preparse = preparse;
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(order, ["health", "append", "post"]);
  });
});
