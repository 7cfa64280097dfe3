/**
 * The contract page's load on the hub while commits stream in, in a real browser against a real
 * hub: during a push of several hundred commits, each of the page's requests (per endpoint) has at
 * most one in flight, a panel's refresh held by the hub leaves at most one more queued behind it
 * (the events arriving meanwhile fold into that one, instead of one full refresh per commit), and
 * the page ends at the pushed head. The contract list asks the state of the rows on screen only,
 * and not again for a contract whose head has not moved. Without /usr/bin/chromium the suite is
 * skipped, except under CI.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { HubClient } from "../src/client/HubClient.js";
import { signedWireCommit } from "../src/client/signedCommits.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { type ExplorerHub, launch, prepare, skipWithoutChromium, startExplorerHub } from "./support/explorerBrowser.js";

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
    const identity = generateKeyPair();
    const access = generateKeyPair();
    const anonymous = new HubClient({ url: servers.restUrl, retries: 0 });
    await anonymous.register(identity.seed, access.seed);
    owner = anonymous.withKey(access.seed);
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

  it("reads the list's states for the rows on screen only, and not again for a head that has not moved", async () => {
    for (let i = 0; i < 30; i++) await owner.createContract({ state: { "/n.text": String(i) } });
    const listed = ((await owner.listContracts({ limit: 50 })).contracts as { contract_id: string }[]).map(
      (c) => c.contract_id,
    );
    assert.ok(listed.length > 30);
    const stateRequests = async () => {
      const counts = await page.evaluate(() => (globalThis as unknown as { __requests: Counts }).__requests);
      return Object.fromEntries(
        listed.map((id) => [id, counts[`/contracts/${id}/state`] ?? { open: 0, max: 0, total: 0 }]),
      );
    };
    /** Every state request asked has been answered and shown (the list asks only while some are). */
    const settled = () =>
      page.waitForFunction(() =>
        Object.entries((globalThis as unknown as { __requests: Counts }).__requests).every(
          ([path, c]) => !path.endsWith("/state") || c.open === 0,
        ),
      );
    await page.setViewportSize({ width: 1280, height: 500 });
    await page.goto(`${servers.restUrl}/#/`);
    const first = page.locator(`tr[data-contract="${listed[0]}"] td.state`);
    const last = page.locator(`tr[data-contract="${listed.at(-1)}"] td.state`);
    await page.locator(`tr[data-contract="${listed[0]}"] td.state:not(:text-is("…"))`).waitFor();
    await settled();
    let asked = await stateRequests();
    assert.equal(asked[listed[0]!]!.total, 1);
    assert.equal(asked[listed.at(-1)!]!.total, 0, "a row far below the screen is not asked about");
    assert.equal(await last.textContent(), "…");
    assert.ok(Object.values(asked).filter((c) => c.total > 0).length < listed.length);

    await last.scrollIntoViewIfNeeded();
    await page.locator(`tr[data-contract="${listed.at(-1)}"] td.state:not(:text-is("…"))`).waitFor();
    await settled();
    asked = await stateRequests();
    assert.equal(asked[listed.at(-1)!]!.total, 1);

    // To a contract and back: the rows read before are filled at once and asked about no more.
    await page.goto(`${servers.restUrl}/#/c/${listed[0]}`);
    await page.locator("#log tbody tr").first().waitFor();
    await page.goto(`${servers.restUrl}/#/`);
    await page.locator(`tr[data-contract="${listed[0]}"]`).waitFor();
    assert.notEqual(await first.textContent(), "…");
    await settled();
    const again = await stateRequests();
    for (const id of listed) {
      assert.ok(again[id]!.total <= 1, `${id} asked ${again[id]!.total} times`);
      if (asked[id]!.total === 1) assert.equal(again[id]!.total, 1);
    }
    await page.setViewportSize({ width: 1280, height: 1000 });
  });
});
