/**
 * The contract page's load on the hub while commits stream in, in a real browser against a real
 * hub: during a push of several hundred commits, each of the page's requests (per endpoint) has at
 * most one in flight, a panel's refresh held by the hub leaves at most one more queued behind it
 * (the events arriving meanwhile fold into that one, instead of one full refresh per commit), and
 * the page ends at the pushed head. The contract list asks its page with every row's state in one
 * request (none per row), and fills the rows whose head has not moved from the states it kept when
 * the hub answers without them. Without /usr/bin/chromium the suite is skipped, except under CI.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import type { HubClient } from "../src/client/HubClient.js";
import { signedWireCommit } from "../src/client/signedCommits.js";
import { type ExplorerHub, launch, prepare, skipWithoutChromium, startExplorerHub } from "./support/explorerBrowser.js";
import { registeredClient } from "./support/registeredClient.js";

const PUSHED = 400;

/**
 * Counts, inside the page, the requests of each endpoint (path) from the page's `fetch` call until
 * its body was read (the explorer reads every answer with `text()`), and the most at once.
 */
function countRequestsInPage(): void {
  const w = globalThis as unknown as {
    fetch: typeof fetch;
    __requests: Record<string, { open: number; max: number; total: number }>;
  };
  const original = w.fetch.bind(w);
  w.__requests = {};
  w.fetch = async (...args: Parameters<typeof fetch>) => {
    const [input] = args;
    const href = (globalThis as unknown as { location: { href: string } }).location.href;
    const url = new URL(input instanceof Request ? input.url : String(input), href);
    const counts = (w.__requests[url.pathname] ??= { open: 0, max: 0, total: 0 });
    counts.open++;
    counts.total++;
    counts.max = Math.max(counts.max, counts.open);
    let res: Response;
    try {
      res = await original(...args);
    } catch (err) {
      counts.open--;
      throw err;
    }
    const read = res.text.bind(res);
    // Assigned, not written in an object literal: tsx would name the function with a helper the page lacks.
    const text: { value?: () => Promise<string> } = {};
    text.value = async () => {
      try {
        return await read();
      } finally {
        counts.open--;
      }
    };
    Object.defineProperty(res, "text", text);
    return res;
  };
}

type Counts = Record<string, { open: number; max: number; total: number }>;

describe("explorer's load on the hub while commits stream in", { skip: skipWithoutChromium }, () => {
  let servers: ExplorerHub;
  let browser: Browser;
  let page: Page;
  let owner: HubClient;

  before(async () => {
    prepare();
    servers = await startExplorerHub("explorer-live-load");
    owner = await registeredClient(servers.restUrl);
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.addInitScript(countRequestsInPage);
  });
  after(async () => {
    await browser?.close();
    await servers?.close();
  });

  it("folds a push's commit events into one queued refresh per panel and ends at the pushed head", async () => {
    const { contract_id } = await owner.createContract({ state: { "/n.text": "0" } });
    const path = (rest: string) => `/contracts/${contract_id}${rest}`;
    /** The data panel's value of /n.text once it is exactly `v`. */
    const dataValue = (v: string) =>
      page.locator('#data li[data-path="/n.text"] .value').filter({ hasText: new RegExp(`^${v}$`) });
    await page.goto(`${servers.restUrl}/#/c/${contract_id}`);
    await page.locator('#live[data-status="live"]').waitFor();
    await page.locator('#log tr[data-index="0"]').waitFor();
    // The first load's panel requests have all been answered before the page subscribes.
    const before = await page.evaluate(() =>
      structuredClone((globalThis as unknown as { __requests: Counts }).__requests),
    );
    for (const rest of ["/log", "/pull", "/assets"]) assert.ok(before[path(rest)], `the first load asked ${rest}`);

    // Hold the log panel's next request until every commit event has reached the page.
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let held = 0;
    await page.route(
      (url) => url.pathname === path("/log"),
      async (route) => {
        held++;
        await gate;
        await route.continue();
      },
    );

    let { head } = await owner.getState(contract_id);
    const commits = [];
    for (let i = 1; i <= PUSHED; i++) {
      const c = signedWireCommit(contract_id, head, [{ method: "post", path: "/n.text", value: String(i) }]);
      commits.push(c);
      head = c.hash;
    }
    const pushed = await owner.push(contract_id, commits);
    assert.equal(pushed.head, head);
    // Each event's state is drawn at once: the last one's commit count means every event has arrived.
    await page
      .locator(".meta p")
      .filter({ hasText: ` ${PUSHED + 1} commits ` })
      .waitFor();
    assert.equal(held, 1, "one log request was held while the events arrived");
    release();

    // The page ends at the pushed head: the newest log entry, the data state and the head.
    await page.locator(`#log tr[data-index="${PUSHED}"]`).waitFor();
    await dataValue(String(PUSHED)).waitFor();
    assert.equal(await page.locator(".meta p code").getAttribute("title"), head);
    // One more commit, shown in its turn. Then some round trips of the page's own: refreshes still
    // queued (one per commit, before the fix) would go on meanwhile. Nothing below depends on how
    // long they take: with at most one refresh queued, none is left once the last commit is shown.
    const marker = signedWireCommit(contract_id, head, [{ method: "post", path: "/n.text", value: "last" }]);
    await owner.push(contract_id, [marker]);
    await page.locator(`#log tr[data-index="${PUSHED + 1}"]`).waitFor();
    await dataValue("last").waitFor();
    await page.evaluate(async () => {
      for (let i = 0; i < 20; i++) await fetch("/health").then((r) => r.text());
    });

    const after = await page.evaluate(() =>
      structuredClone((globalThis as unknown as { __requests: Counts }).__requests),
    );
    for (const [endpoint, c] of Object.entries(after)) {
      assert.ok(c.max <= 1, `${endpoint}: ${c.max} requests at once`);
    }
    // The held refresh, the one queued behind it and the last commit's: three more of each panel's
    // requests, not one per commit.
    for (const rest of ["/log", "/pull", "/assets"]) {
      const added = after[path(rest)]!.total - before[path(rest)]!.total;
      assert.ok(added <= 3, `${rest}: ${added} requests for ${PUSHED + 1} commits`);
    }
    assert.equal(after[path("/log")]!.total - before[path("/log")]!.total, 3);
  });

  it("asks the list with its states in one request, and keeps them for a list the hub answers without", async () => {
    const model = "model M {\n  initial a\n  a -> b [+GO]\n  b -> b []\n}";
    for (let i = 0; i < 30; i++) {
      const { contract_id } = await owner.createContract({ model });
      if (i % 3 === 0) await owner.submitCommit(contract_id, { method: "action", value: "GO" });
    }
    const listed = ((await owner.listContracts({ limit: 50 })).contracts as { contract_id: string }[]).map(
      (c) => c.contract_id,
    );
    assert.ok(listed.length > 30 && listed.length < 50, "one page of the list");
    const states = new Map<string, string>();
    for (const id of listed) states.set(id, (await owner.getState(id)).current_state);
    assert.deepEqual(new Set(states.values()), new Set(["", "a", "b"]));

    const asked: URL[] = [];
    const onRequest = (r: { url(): string }) => asked.push(new URL(r.url()));
    page.on("request", onRequest);
    const lists = () => asked.filter((u) => u.pathname === "/contracts").map((u) => u.search);
    const stateReads = () => asked.filter((u) => /^\/contracts\/[^/]+\/state$/.test(u.pathname));
    /** Each listed row's state cell, once the list has filled it. */
    const shown = async () => {
      await page.locator(`tr[data-contract="${listed.at(-1)}"] td.state:not(:text-is("…"))`).waitFor();
      return page
        .locator("tr[data-contract]")
        .evaluateAll((rows) =>
          rows.map((r) => [r.getAttribute("data-contract"), r.querySelector("td.state")?.getAttribute("data-state")]),
        );
    };
    try {
      await page.setViewportSize({ width: 1280, height: 500 });
      await page.goto(`${servers.restUrl}/#/`);
      // Every row, also those far below the screen, from the one answer.
      assert.deepEqual(
        await shown(),
        listed.map((id) => [id, states.get(id)]),
      );
      assert.deepEqual(lists(), ["?limit=50&offset=0&include=state"]);
      assert.deepEqual(stateReads(), []);

      // The hub refuses the list with states once the visitor's work budget is spent; spending it
      // for real would starve the page's other requests, so the refusal is the hub's answer for
      // that, given here. Meanwhile one contract moved on and one was created.
      const moved = listed.find((id) => states.get(id) === "a")!;
      await owner.submitCommit(moved, { method: "action", value: "GO" });
      const { contract_id: created } = await owner.createContract({ model });
      const refusal = {
        error: "Expensive work budget of 5 CPU-seconds a minute spent; retry after 10 s",
        code: "RATE_LIMITED",
        details: { reason: "work_budget", limit_ms_per_minute: 5000, retry_after: 10 },
      };
      await page.route(
        (url) => url.pathname === "/contracts" && url.searchParams.get("include") === "state",
        (route) => route.fulfill({ status: 429, contentType: "application/json", body: JSON.stringify(refusal) }),
      );
      await page.goto(`${servers.restUrl}/#/c/${listed[0]}`);
      await page.locator("#log tbody tr").first().waitFor();
      asked.length = 0;
      await page.goto(`${servers.restUrl}/#/`);
      await page.locator(`tr[data-contract="${created}"] td.state:text-is("?")`).waitFor();
      // The heads that did not move show the states kept from the first answer; the others "?".
      // Rows in the hub's order: a contract created within the same second as others is
      // listed among them by id, not always last.
      const order = (await owner.listContracts({ limit: 50 })).contracts.map((c) => c.contract_id);
      assert.deepEqual(new Set(order), new Set([...listed, created]));
      assert.deepEqual(
        await shown(),
        order.map((id) => [id, id === moved || id === created ? "" : states.get(id)]),
      );
      assert.equal(await page.locator(`tr[data-contract="${moved}"] td.state`).textContent(), "?");
      assert.deepEqual(lists(), ["?limit=50&offset=0&include=state", "?limit=50&offset=0"]);
      assert.deepEqual(stateReads(), []);
    } finally {
      page.off("request", onRequest);
      await page.unrouteAll();
      await page.setViewportSize({ width: 1280, height: 1000 });
    }
  });
});
