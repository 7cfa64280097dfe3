/**
 * A pull of big commits (`GET /contracts/:id/pull`; docs/api.md, "Pull pages") is read from
 * the store in pages of at most PULL_PAGE_CHARS characters of entries, each its own turn of the event
 * loop. The store answered 1,024 entries whatever their size: 64 commits of 200,000-character
 * values were one page of 25 MiB, read, joined and written in one piece. The response is the
 * same, byte for byte.
 *
 * How it is seen, by ordering: the store's first page sends GET /health; the page that holds
 * the last entry notes when it is read. One page for the whole pull read its last entry
 * before /health could be answered; pages of a few entries each let it through first.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { buildCommit } from "../src/contract/engine.js";
import { toPulledCommit } from "../src/contract/StoredCommit.js";
import { PULL_PAGE_CHARS } from "../src/store/pullPages.js";
import { askHealth, type Listening, listenRestAndRpc, storeWith } from "./support/liveTestApp.js";
import { genesisFor, type TestApp, testApp } from "./support/testApps.js";

const BIG_COMMITS = 64;

describe("long pulls", () => {
  let t: TestApp;
  let live: Listening;
  const id = "long-pull-pages";
  /** "health" when GET /health was answered, "last" when the page holding the last entry was read. */
  let order: string[] = [];
  /** The entries of each page the store answered. */
  let pages: string[][] = [];

  before(async () => {
    // The store notes each page of a pull, and sends GET /health as the first one is read.
    t = await testApp("rest", {
      wrapStore: (store) =>
        storeWith(store, {
          readPullTexts: (own) =>
            async function* (...args) {
              let read = 0;
              for await (const page of own(...args)) {
                if (pages.length === 0) void askHealth(live.restUrl, order);
                pages.push(page);
                read += page.length;
                if (args[1] + read === args[2]) order.push("last");
                yield page;
              }
            },
        }),
    });
    live = await listenRestAndRpc(t);
    const commits = [genesisFor(id, t.owner)];
    for (let i = 0; i < BIG_COMMITS; i++) {
      const data = [{ method: "post" as const, path: `/v/${i}.text`, value: String(i % 10).repeat(200_000) }];
      commits.push(buildCommit(id, commits.at(-1)!.hash, data));
    }
    for (let i = 0; i < commits.length; i += 16) {
      const pushed = await t.signed({
        method: "POST",
        url: `/contracts/${id}/push`,
        body: { commits: commits.slice(i, i + 16) },
      });
      assert.equal(pushed.statusCode, 200);
    }
  });
  after(() => live.close());

  it("reads a pull of big commits in pages bounded by their text, answers GET /health in between, and sends the same bytes", async () => {
    order = [];
    pages = [];
    const res = await fetch(`${live.restUrl}/contracts/${id}/pull`);
    assert.equal(res.status, 200);
    const body = await res.text();

    const record = (await t.hub.store.getContract(id))!;
    const texts: string[] = [];
    for await (const c of t.hub.store.readCommits(id)) texts.push(JSON.stringify(toPulledCommit(c)));
    assert.equal(texts.length, BIG_COMMITS + 1);
    assert.equal(body, `{"contract_id":"${id}","head":"${record.head}","commits":[${texts.join(",")}]}`);

    assert.deepEqual(pages.flat(), texts);
    for (const page of pages) {
      const chars = page.reduce((sum, text) => sum + text.length, 0);
      assert.ok(page.length === 1 || chars <= PULL_PAGE_CHARS, `${page.length} entries, ${chars} characters`);
    }
    assert.deepEqual(order, ["health", "last"]);
  });
});
