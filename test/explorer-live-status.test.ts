/**
 * The contract page's live indicator and its redraws, in a real browser against a real hub: while
 * it waits to connect again (a refused `subscribe`, a dropped socket) the header counts the wait
 * down and offers "retry now", which connects at once; and a push of hundreds of commits redraws
 * the page far fewer times than it has events (at most once a frame), ending on the pushed head.
 * Nothing is timed: the countdown is only seen to go down. Without /usr/bin/chromium the suite is
 * skipped, except under CI.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, WebSocketRoute } from "playwright-core";
import type { HubClient } from "../src/client/HubClient.js";
import { signedWireCommit } from "../src/client/signedCommits.js";
import { type ExplorerHub, launch, prepare, skipWithoutChromium, startExplorerHub } from "./support/explorerBrowser.js";
import { registeredClient } from "./support/registeredClient.js";

const PUSHED = 500;

describe("explorer's live indicator and redraws, in a real browser", { skip: skipWithoutChromium }, () => {
  let servers: ExplorerHub;
  let browser: Browser;
  let owner: HubClient;

  before(async () => {
    prepare();
    servers = await startExplorerHub("explorer-live-status");
    owner = await registeredClient(servers.restUrl);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await servers?.close();
  });

  // The timeout turns a "retry now" that does not connect into a failure rather than a hang.
  it("counts the wait down after a refusal, retries at once on request, and after a drop", {
    timeout: 120_000,
  }, async () => {
    const { contract_id } = await owner.createContract({ state: { "/n.text": "0" } });
    const p = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    // Socket 1: its subscribe refused with an hour's hint (the hub's RATE_LIMITED answer), so only
    // "retry now" brings the page back within the test. Socket 2: held until `open` is called, so
    // the page is seen connecting; then the real hub's. Later sockets: the real hub's.
    const sockets: WebSocketRoute[] = [];
    let open!: () => void;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    let secondArrived!: () => void;
    const second = new Promise<void>((resolve) => {
      secondArrived = resolve;
    });
    await p.routeWebSocket(/\/ws$/, async (ws) => {
      sockets.push(ws);
      if (sockets.length === 1) {
        ws.send(JSON.stringify({ jsonrpc: "2.0", method: "hello", params: {} }));
        ws.onMessage((message) => {
          const frame = JSON.parse(String(message)) as { id?: number; method?: string };
          if (frame.method !== "subscribe") return;
          const data = { code: "RATE_LIMITED", details: { reason: "work_budget", retry_after: 3600 } };
          ws.send(JSON.stringify({ jsonrpc: "2.0", id: frame.id, error: { code: -32029, message: "Busy", data } }));
        });
        return;
      }
      if (sockets.length === 2) {
        secondArrived();
        await opened;
      }
      ws.connectToServer();
    });
    const live = p.locator("#live");
    const retry = p.locator("#live-retry");
    const retryIn = async () => Number(await live.getAttribute("data-retry-in"));
    try {
      await p.goto(`${servers.restUrl}/#/c/${contract_id}`);
      await p.locator('#live[data-status="offline"]').waitFor();
      assert.equal(await p.locator("#live-text").getAttribute("aria-live"), "polite");
      const first = await retryIn();
      assert.ok(first >= 3600 && first <= 4500, `waits the hint: ${first} s`);
      await retry.waitFor();
      // The countdown goes down by itself.
      await p.locator(`#live[data-status="offline"]:not([data-retry-in="${first}"])`).waitFor();
      const later = await retryIn();
      assert.ok(later < first, `${first} s, then ${later} s`);

      // Within the hour's wait: connected because of the click.
      await retry.click();
      await second;
      await p.locator('#live[data-status="connecting"]').waitFor();
      assert.equal(await live.getAttribute("data-retry-in"), null);
      assert.equal(await retry.isVisible(), false);
      open();
      await p.locator('#live[data-status="live"]').waitFor();
      assert.equal(await retry.isVisible(), false);

      // Dropped: the first step of the backoff, counted down too, then live by itself.
      await sockets[1]!.close();
      // Checked in the page as it happens: the wait is about a second, too short to read it after.
      await p.locator('#live[data-status="offline"]:is([data-retry-in="1"], [data-retry-in="2"])').waitFor();
      await p.locator('#live[data-status="live"]').waitFor();
      assert.equal(sockets.length, 3);

      // The page still follows commits on the socket it came back on.
      const { commit_count } = await owner.getState(contract_id);
      await owner.submitCommit(contract_id, { method: "post", path: "/n.text", value: "back" });
      await p.locator(`#log tr[data-index="${commit_count}"]`).waitFor();
    } finally {
      await p.close();
    }
  });

  it(`redraws a push of ${PUSHED} commits far fewer times than it has events, ending on its head`, async () => {
    const { contract_id } = await owner.createContract({ state: { "/n.text": "0" } });
    const p = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    try {
      await p.goto(`${servers.restUrl}/#/c/${contract_id}`);
      await p.locator('#live[data-status="live"]').waitFor();
      const meta = p.locator("#contract-meta");
      const draws = async () => Number(await p.locator("#app").getAttribute("data-draws"));
      const before = await draws();
      assert.ok(before >= 1, "the first load drew the page");

      let { head } = await owner.getState(contract_id);
      const commits = [];
      for (let i = 1; i <= PUSHED; i++) {
        const c = signedWireCommit(contract_id, head, [{ method: "post", path: "/n.text", value: String(i) }]);
        commits.push(c);
        head = c.hash;
      }
      // The page's animation frames from here on: the redraws may be at most one each.
      // A string, not a function: tsx would name a nested function with a helper the page lacks.
      await p.evaluate(
        "globalThis.__frames = 0; (function count() { globalThis.__frames++; requestAnimationFrame(count); })()",
      );
      assert.equal((await owner.push(contract_id, commits)).head, head);
      await p.locator(`#contract-meta[data-commit-count="${PUSHED + 1}"]`).waitFor();
      assert.equal(await meta.getAttribute("data-head"), head);
      await p.locator(`#log tr[data-index="${PUSHED}"]`).waitFor();
      await p
        .locator('#data li[data-path="/n.text"] .value')
        .filter({ hasText: new RegExp(`^${PUSHED}$`) })
        .waitFor();
      const drawn = (await draws()) - before;
      const frames = await p.evaluate(() => (globalThis as unknown as { __frames: number }).__frames);
      // The hub sends a push's events as it stores them, so they reach the page over some frames
      // (11 to 33 redraws here), never one redraw each.
      assert.ok(drawn >= 1 && drawn <= PUSHED / 5, `${drawn} redraws for ${PUSHED} commit events`);
      assert.ok(drawn <= frames + 1, `${drawn} redraws in ${frames} animation frames`);
    } finally {
      await p.close();
    }
  });
});
