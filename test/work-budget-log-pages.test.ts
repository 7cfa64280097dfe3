/**
 * Pages of the log and the work budget (docs/security.md, "Work budget per caller"): building
 * and writing a page of the log is charged to the caller, and a big page (past 1 MiB of
 * entries) asks the caller's allowance first, as a long pull does. Pages were free: one caller
 * could ask for 8 MiB pages in a loop and never be refused. Over real HTTP on loopback, with a
 * budget of 1 CPU-millisecond a minute: the caller asking for big pages over and over is
 * refused 429 `work_budget` (JSON-RPC -32029) with `retry_after`; its small pages are still
 * served (they are charged, never refused), and so is another caller's big page.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { signRequest } from "../src/auth/signRequest.js";
import { buildCommit } from "../src/contract/engine.js";
import { BIG_LOG_PAGE_BYTES } from "../src/hub/readLogPage.js";
import { listenRestAndRpc } from "./support/liveTestApp.js";
import { genesisFor, type Principal, type TestApp, testApp } from "./support/testApps.js";

/** Pages asked for before the test gives up waiting for a refusal. */
const TRIES = 50;

interface Page {
  commits: unknown[];
  total: number;
}

interface Refusal {
  code: string;
  details: { reason: string; retry_after: number };
}

describe("pages of the log and the work budget", () => {
  let t: TestApp;
  let rpc: FastifyInstance;
  let restUrl: string;
  let rpcUrl: string;
  const id = "budget-log-pages";

  before(async () => {
    t = await testApp("rest", { workBudgetMs: 1 });
    ({ restUrl, rpcUrl, rpc } = await listenRestAndRpc(t));
    // 20 commits of a 100,000-character value each: a page of them all is about 2 MB, a big
    // page; one of the first two entries is a small one.
    assert.ok(20 * 100_000 > BIG_LOG_PAGE_BYTES && 2 * 100_512 < BIG_LOG_PAGE_BYTES);
    const commits = [genesisFor(id, t.owner)];
    for (let i = 0; i < 20; i++) {
      const data = [{ method: "post" as const, path: `/v/${i}.text`, value: String(i % 10).repeat(100_000) }];
      commits.push(buildCommit(id, commits.at(-1)!.hash, data));
    }
    const pushed = await t.signed({ method: "POST", url: `/contracts/${id}/push`, body: { commits } });
    assert.equal(pushed.statusCode, 200);
  });
  after(async () => {
    await rpc.close();
    await t.close();
  });

  async function rest(as: Principal, route: string, limit: number) {
    const url = `/contracts/${id}/${route}?limit=${limit}`;
    const res = await fetch(restUrl + url, {
      headers: signRequest(as.access.seed, { method: "GET", url, body: "" }),
    });
    return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as unknown };
  }

  async function rpcGetLog(as: Principal, limit: number) {
    const text = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getLog", params: { contract_id: id, limit } });
    const headers = {
      "content-type": "application/json",
      ...signRequest(as.access.seed, { method: "POST", url: "/", body: text }),
    };
    const res = await fetch(rpcUrl, { method: "POST", headers, body: text });
    assert.equal(res.status, 200);
    const answer = (await res.json()) as {
      result?: Page;
      error?: { code: number; data: { code: string; details: { reason: string; retry_after: number } } };
      retryAfter: string | null;
    };
    answer.retryAfter = res.headers.get("retry-after");
    return answer;
  }

  for (const route of ["log", "commits"]) {
    it(`GET /contracts/:id/${route}: big pages in a loop end in 429 work_budget; small pages and others are served`, async () => {
      const attacker = await t.principal();
      let served = 0;
      let answer = await rest(attacker, route, 1000);
      for (let i = 0; answer.status === 200 && i < TRIES; i++) {
        assert.equal((answer.body as Page).commits.length, 21);
        served++;
        answer = await rest(attacker, route, 1000);
      }
      const refusal = answer.body as Refusal;
      assert.deepEqual([answer.status, refusal.code, refusal.details.reason], [429, "RATE_LIMITED", "work_budget"]);
      assert.ok(served >= 1, `${served} pages served first`);
      assert.ok(refusal.details.retry_after >= 1);
      assert.equal(Number(answer.retryAfter), refusal.details.retry_after);

      // A small page of the same caller is charged but never refused.
      const small = await rest(attacker, route, 2);
      assert.equal(small.status, 200);
      assert.deepEqual([(small.body as Page).commits.length, (small.body as Page).total], [2, 21]);

      // Another caller's allowance is its own.
      const other = await rest(await t.principal(), route, 1000);
      assert.equal(other.status, 200);
      assert.equal((other.body as Page).commits.length, 21);
    });
  }

  it("JSON-RPC getLog: big pages in a loop end in -32029 work_budget; small pages and others are served", async () => {
    const attacker = await t.principal();
    let served = 0;
    let answer = await rpcGetLog(attacker, 1000);
    for (let i = 0; answer.result !== undefined && i < TRIES; i++) {
      assert.equal(answer.result.commits.length, 21);
      served++;
      answer = await rpcGetLog(attacker, 1000);
    }
    const error = answer.error!;
    assert.deepEqual([error.code, error.data.code, error.data.details.reason], [-32029, "RATE_LIMITED", "work_budget"]);
    assert.ok(served >= 1, `${served} pages served first`);
    assert.ok(error.data.details.retry_after >= 1);
    // HTTP 200, as every JSON-RPC answer, with the wait in Retry-After as a REST refusal has it.
    assert.equal(Number(answer.retryAfter), error.data.details.retry_after);

    const small = await rpcGetLog(attacker, 2);
    assert.equal(small.retryAfter, null);
    assert.deepEqual([small.result?.commits.length, small.result?.total], [2, 21]);

    const other = await rpcGetLog(await t.principal(), 1000);
    assert.equal(other.result?.commits.length, 21);
  });
});
