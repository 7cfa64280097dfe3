/**
 * JSON-RPC batches (docs/security.md, "Hostile load: expensive work"; docs/api.md): the event
 * loop takes a turn after each call of a batch, and the answers of one batch are bounded.
 * The calls ran back to back in one piece of work (each answered from memory or the store,
 * yielding only to promise callbacks): 100 pages of the log held the event loop about a
 * second, and 100 pulls of 8 MiB each built an answer too long for a string, after seconds
 * of work, to answer INTERNAL.
 *
 * How the turns are seen, by ordering: `GET /health` is sent at the batch's first call
 * (Hub.getContract wrapped); each call notes whether its answer had come back by then.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { WebSocket } from "ws";
import { signRequest } from "../src/auth/signRequest.js";
import { buildCommit } from "../src/contract/engine.js";
import { BATCH_ANSWER_CHARS } from "../src/http/RpcDispatcher.js";
import { askHealth, listenRestAndRpc } from "./support/liveTestApp.js";
import { genesisFor, type TestApp, testApp } from "./support/testApps.js";

interface RpcAnswer {
  id?: unknown;
  result?: unknown;
  error?: { code: number; data?: { code: string; details?: Record<string, unknown> } };
}

const call = (id: number | undefined, method: string, params: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  ...(id === undefined ? {} : { id }),
  method,
  params,
});

describe("long JSON-RPC batches", () => {
  let t: TestApp;
  let rpc: FastifyInstance;
  let restUrl: string;
  let rpcUrl: string;
  /** "health" when GET /health was answered, "call" for each getContract, in order. */
  let order: string[] = [];
  /** A contract whose log is over 8 MiB: a page of it is one of the longest answers a call gives. */
  const big = "long-batch-values";

  before(async () => {
    t = await testApp("rest");
    let sentHealth = false;
    const getContract = t.hub.getContract.bind(t.hub);
    t.hub.getContract = (...args: Parameters<typeof getContract>) => {
      order.push("call");
      if (!sentHealth) {
        sentHealth = true;
        void askHealth(restUrl, order);
      }
      return getContract(...args);
    };
    ({ restUrl, rpcUrl, rpc } = await listenRestAndRpc(t));
    // 90 commits of a 100,000-character value each: about 9 MiB of log.
    const genesis = genesisFor(big, t.owner);
    const commits = [genesis];
    for (let i = 0; i < 90; i++) {
      const data = [{ method: "post" as const, path: `/v/${i}.text`, value: String(i % 10).repeat(100_000) }];
      commits.push(buildCommit(big, commits.at(-1)!.hash, data));
    }
    const pushed = await t.signed({ method: "POST", url: `/contracts/${big}/push`, body: { commits } });
    assert.equal(pushed.statusCode, 200);
  });
  after(async () => {
    await rpc.close();
    await t.close();
  });

  async function post(body: unknown): Promise<RpcAnswer[]> {
    const text = JSON.stringify(body);
    const headers = {
      "content-type": "application/json",
      ...signRequest(t.owner.access.seed, { method: "POST", url: "/", body: text }),
    };
    const res = await fetch(rpcUrl, { method: "POST", headers, body: text });
    assert.equal(res.status, 200);
    return (await res.json()) as RpcAnswer[];
  }

  it("answers GET /health between the calls of a batch", async () => {
    const { id } = await t.contract();
    order = [];
    const answers = await post(Array.from({ length: 100 }, (_, i) => call(i, "getContract", { contract_id: id })));
    assert.equal(answers.length, 100);
    assert.ok(answers.every((a) => (a.result as { contract_id?: string }).contract_id === id));
    // GET /health was answered while the batch's calls were still running.
    const health = order.indexOf("health");
    assert.ok(health > 0 && health < order.length - 1, order.join(" "));
    assert.equal(order.filter((o) => o === "call").length, 100);
  });

  it("does not run the calls after the answers reached the limit, and says so", async () => {
    const page = call(1, "getLog", { contract_id: big, limit: 1000 });
    const before = (await t.hub.listContracts(t.owner.caller, {})).total;
    const answers = await post([
      page,
      { ...page, id: 2 },
      { ...page, id: 3 },
      { ...page, id: 4 },
      call(5, "createContract", { model: null, rules: [] }),
      call(undefined, "createContract", { model: null, rules: [] }),
      call(6, "getHealth", {}),
    ]);
    // Each page is near 8 MiB: calls run while the answers before them are under the limit.
    let chars = 0;
    const ran = answers.map((a) => {
      const run = chars < BATCH_ANSWER_CHARS;
      chars += JSON.stringify(a).length;
      return run;
    });
    assert.deepEqual(
      answers.map((a) => a.id),
      [1, 2, 3, 4, 5, 6],
    );
    assert.ok(ran[1] && !ran[3], ran.join(" "));
    for (const [i, a] of answers.entries()) {
      if (ran[i]) assert.ok(a.result !== undefined, `call ${a.id} ran`);
      else
        assert.deepEqual(
          [a.error?.code, a.error?.data?.code, a.error?.data?.details],
          [-32013, "PAYLOAD_TOO_LARGE", { reason: "batch_answer_too_large", limit: BATCH_ANSWER_CHARS }],
        );
    }
    // Neither createContract ran (the notification neither).
    assert.equal((await t.hub.listContracts(t.owner.caller, {})).total, before);
  });

  it("bounds a batch's answers on a WebSocket the same way", async () => {
    const ws = new WebSocket(`${restUrl.replace(/^http/, "ws")}/ws`, { maxPayload: 64 * 1024 * 1024 });
    const frames: string[] = [];
    const answered = new Promise<void>((resolve, reject) => {
      ws.once("error", reject);
      ws.on("message", (data) => {
        frames.push(data.toString());
        if (frames.length === 2) resolve();
      });
    });
    await new Promise((resolve) => ws.once("open", resolve));
    const page = call(1, "getLog", { contract_id: big, limit: 1000 });
    ws.send(JSON.stringify([1, 2, 3, 4].map((id) => ({ ...page, id }))));
    await answered;
    ws.close();
    const answers = JSON.parse(frames[1]!) as RpcAnswer[];
    assert.deepEqual(
      answers.map((a) => a.id),
      [1, 2, 3, 4],
    );
    assert.ok(answers[0]!.result !== undefined);
    assert.equal(answers[3]!.error?.data?.details?.reason, "batch_answer_too_large");
  });
});
