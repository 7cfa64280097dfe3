/**
 * A long pull and the work budget (docs/security.md, "Work budget per caller"): the pull is
 * charged for the hub's work on it, reading its pages and writing them, not for the time a
 * slow reader keeps it waiting. The pull was charged from its first page to its last, so while
 * a client on a slow link held the socket full the hub, idle, charged it the wait: a pull held
 * two seconds by its reader spent a 1-second allowance, and the same client's next long pull
 * was refused 429 `work_budget`. A caller who makes the hub read long pulls over and over is
 * still refused. Over real HTTP on loopback, with a budget of 1 CPU-second a minute.
 */
import assert from "node:assert/strict";
import { get } from "node:http";
import { after, before, describe, it } from "node:test";
import { signRequest } from "../src/auth/signRequest.js";
import { buildCommit } from "../src/contract/engine.js";
import { type Listening, listenRestAndRpc, storeWith } from "./support/liveTestApp.js";
import { genesisFor, type Principal, type TestApp, testApp } from "./support/testApps.js";

/** Commits after the genesis: past the 1,000 at which a pull asks the caller's allowance. */
const COMMITS = 1_100;
/** How long the slow reader leaves the response unread, in all. */
const READER_PAUSE_MS = 2_000;
/** Pulls asked for before the test gives up waiting for a refusal. */
const TRIES = 100;

interface Refusal {
  code: string;
  details: { reason: string; retry_after: number };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a long pull and the work budget", () => {
  let t: TestApp;
  let live: Listening;
  const id = "budget-slow-pull";
  const path = `/contracts/${id}/pull`;
  /** Entries the store has read for pulls so far. */
  let entriesRead = 0;

  before(async () => {
    t = await testApp("rest", {
      workBudgetMs: 1_000,
      wrapStore: (store) =>
        storeWith(store, {
          readPullTexts: (own) =>
            async function* (...args) {
              for await (const page of own(...args)) {
                entriesRead += page.length;
                yield page;
              }
            },
        }),
    });
    live = await listenRestAndRpc(t);
    // 1,100 commits of a 10,000-character value each: a pull of about 11 MB, more than the
    // socket buffers on both sides hold, so a reader that stops reading holds the pull back.
    const commits = [genesisFor(id, t.owner)];
    for (let i = 0; i < COMMITS; i++) {
      const data = [{ method: "post" as const, path: `/v/${i}.text`, value: String(i % 10).repeat(10_000) }];
      commits.push(buildCommit(id, commits.at(-1)!.hash, data));
    }
    const pushed = await t.signed({ method: "POST", url: `/contracts/${id}/push`, body: { commits } });
    assert.equal(pushed.statusCode, 200);
  });
  after(() => live.close());

  /** A signed pull read at once: its status, Retry-After and parsed body. */
  async function pull(as: Principal) {
    const res = await fetch(live.restUrl + path, {
      headers: signRequest(as.access.seed, { method: "GET", url: path, body: "" }),
    });
    return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as unknown };
  }

  /**
   * A signed pull read by a slow client: its first bytes, then nothing for READER_PAUSE_MS,
   * then the rest. Also the entries the store had read when the reader went on.
   */
  function slowPull(as: Principal): Promise<{ status: number; commits: number; readWhenResumed: number }> {
    const headers = signRequest(as.access.seed, { method: "GET", url: path, body: "" });
    const readBefore = entriesRead;
    return new Promise((resolve, reject) => {
      get(`${live.restUrl}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        let readWhenResumed = -1;
        res.once("data", () => {
          res.pause();
          void sleep(READER_PAUSE_MS).then(() => {
            readWhenResumed = entriesRead - readBefore;
            res.resume();
          });
        });
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { commits: unknown[] };
          resolve({ status: res.statusCode!, commits: body.commits.length, readWhenResumed });
        });
      }).on("error", reject);
    });
  }

  it("does not charge a slow reader's wait: its next long pull is served", async () => {
    const reader = await t.principal();
    const slow = await slowPull(reader);
    assert.deepEqual([slow.status, slow.commits], [200, COMMITS + 1]);
    // The reader did hold the pull back: the store had not read it all when the reader went on.
    assert.ok(slow.readWhenResumed >= 0 && slow.readWhenResumed < COMMITS + 1, `${slow.readWhenResumed} entries read`);

    const next = await pull(reader);
    assert.equal(next.status, 200, JSON.stringify(next.body).slice(0, 200));
    assert.equal((next.body as { commits: unknown[] }).commits.length, COMMITS + 1);
  });

  it("still refuses a caller whose long pulls keep the hub reading: 429 work_budget", async () => {
    const puller = await t.principal();
    let served = 0;
    let answer = await pull(puller);
    for (let i = 0; answer.status === 200 && i < TRIES; i++) {
      assert.equal((answer.body as { commits: unknown[] }).commits.length, COMMITS + 1);
      served++;
      answer = await pull(puller);
    }
    const refusal = answer.body as Refusal;
    assert.deepEqual([answer.status, refusal.code, refusal.details.reason], [429, "RATE_LIMITED", "work_budget"]);
    assert.ok(served >= 1, `${served} pulls served first`);
    assert.ok(refusal.details.retry_after >= 1);
    assert.equal(Number(answer.retryAfter), refusal.details.retry_after);

    // Another caller's allowance is its own.
    const other = await pull(await t.principal());
    assert.equal(other.status, 200);
  });
});
