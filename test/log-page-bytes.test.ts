/**
 * A log page is bounded in bytes (docs/api.md, docs/security.md "Size and shape limits"): a
 * log entry carries its first operation's value (up to a megabyte), so `limit=1000` could ask
 * for a gigabyte in one answer. One anonymous read of a contract of 300 such commits held the
 * event loop 1.5 s and half a gigabyte of memory. A page now ends once its values pass
 * LOG_PAGE_BYTES (never before its first entry); paging by the number of entries returned
 * reaches every commit, in order. The unstreamed pull (JSON-RPC) is bounded alike, with
 * `has_more`. Real SQLite, in process.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { WireCommit } from "../src/contract/Commit.js";
import { ANONYMOUS } from "../src/hub/HubApi.js";
import { LOG_PAGE_BYTES } from "../src/hub/readLogPage.js";
import { Actor, cleanup, openHub, signedCommit } from "./hub-fixtures.js";

describe("log pages bounded in bytes", () => {
  after(cleanup);

  it("a page of big values ends past LOG_PAGE_BYTES; paging by what came back reaches every commit", async () => {
    const hub = await openHub();
    try {
      const owner = new Actor("owner");
      const { contract_id: id } = await hub.createContract(owner.caller, { model: null, rules: [] });
      let head = (await hub.getState(owner.caller, id)).head;
      const big = (i: number) => `${i}:${"b".repeat(1_000_000)}`;
      const n = 12;
      const chain: WireCommit[] = [];
      for (let i = 0; i < n; i++) {
        const c = signedCommit(id, head, [{ method: "post", path: `/b/${i}.text`, value: big(i) }]);
        chain.push(c);
        head = c.hash;
      }
      await hub.push(owner.caller, id, { commits: chain });

      const first = await hub.getLog(ANONYMOUS, id, { limit: 1000 });
      assert.equal(first.total, n + 1);
      assert.ok(first.commits.length < n + 1, `one page carried all ${first.commits.length} entries`);
      const bytes = first.commits.reduce((sum, e) => sum + JSON.stringify(e).length, 0);
      assert.ok(bytes <= LOG_PAGE_BYTES + 1_100_000, `a page of ${bytes} bytes`);

      const seen = [...first.commits];
      while (seen.length < first.total) {
        const page = await hub.getLog(ANONYMOUS, id, { limit: 1000, offset: seen.length });
        assert.ok(page.commits.length >= 1);
        seen.push(...page.commits);
      }
      assert.deepEqual(
        seen.map((e) => e.index),
        Array.from({ length: n + 1 }, (_, i) => i),
      );
      assert.equal(seen[5]!.value, big(4));

      // The unstreamed pull (JSON-RPC `pull`) is bounded the same way and says has_more.
      const pulled = await hub.pull(ANONYMOUS, id, {});
      assert.ok(pulled.commits.length < n + 1, `one pull carried all ${pulled.commits.length} commits`);
      assert.equal(pulled.has_more, true);
      const all = [...pulled.commits];
      for (;;) {
        const next = await hub.pull(ANONYMOUS, id, { since: all.at(-1)!.hash });
        all.push(...next.commits);
        if (next.has_more !== true) break;
      }
      assert.deepEqual(
        all.map((c) => c.hash),
        seen.map((e) => e.hash),
      );
      const whole = await hub.pull(ANONYMOUS, id, { since: all.at(-2)!.hash });
      assert.equal(whole.commits.length, 1);
      assert.equal(whole.has_more, undefined, "an answer that was not cut says nothing without a limit");

      // One entry bigger than the bound still comes back, alone.
      const one = await hub.getLog(ANONYMOUS, id, { limit: 1, offset: 3 });
      assert.equal(one.commits.length, 1);
      // Ordinary entries fill a page up to its limit.
      const small = await hub.getLog(ANONYMOUS, id, { limit: 1 });
      assert.equal(small.commits[0]!.method, "genesis");
    } finally {
      await hub.close();
    }
  });
});
