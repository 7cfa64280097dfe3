/**
 * The explorer as a visitor meets it, in a real browser against a real hub: contract values that
 * carry markup are shown as text and never run; a private, a missing and a malformed contract id
 * get the message alone (a malformed escape in the URL no longer stops the page, an escaped "?"
 * stays part of the id); a list offset past the end says so; a slow answer for a page the
 * visitor has left does not replace the page they moved to; and a phone-wide screen never
 * scrolls sideways. Without /usr/bin/chromium the suite is skipped, except under CI.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page, Route, WebSocketRoute } from "playwright-core";
import { HubClient } from "../src/client/HubClient.js";
import { proposalSignatures } from "../src/client/proposalSignatures.js";
import { signedWireCommit } from "../src/client/signedCommits.js";
import { buildCommit } from "../src/contract/engine.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { hubOperations } from "../src/synthesis/hubOperations.js";
import { TEMPLATE_CATALOGUE } from "../src/templates/templateCatalogue.js";
import {
  ARTIFACTS,
  type ExplorerHub,
  launch,
  prepare,
  skipWithoutChromium,
  startExplorerHub,
} from "./support/explorerBrowser.js";

/** Markup that would run or render if any value reached the page as HTML. */
const HOSTILE = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>&amp;`;
const MODEL = "model M {\n  initial a\n  a -> a []\n  a -> b [+GO]\n}";

describe("explorer as a visitor, in a real browser", { skip: skipWithoutChromium }, () => {
  let servers: ExplorerHub;
  let browser: Browser;
  let page: Page;
  let shown: string;
  let hidden: string;
  let owner: HubClient;
  let ownerKey: string;
  let ownerSeed: Uint8Array;
  const pageErrors: string[] = [];
  /** What the page's Content-Security-Policy refused: nothing the explorer itself does. */
  const refused: string[] = [];

  before(async () => {
    prepare();
    servers = await startExplorerHub("explorer-visitor", {
      templates: TEMPLATE_CATALOGUE,
      synthesis: hubOperations({}),
    });
    const identity = generateKeyPair();
    const access = generateKeyPair();
    const anonymous = new HubClient({ url: servers.restUrl, retries: 0 });
    await anonymous.register(identity.seed, access.seed);
    owner = anonymous.withKey(access.seed);
    const key = identity.publicKey.toString("hex");
    ownerKey = key;
    ownerSeed = identity.seed;
    shown = (
      await owner.createContract({
        model: MODEL,
        state: {
          "/terms/note.text": HOSTILE,
          "/terms/blob.text": "x".repeat(3000),
          "/terms/wide.json": { [HOSTILE]: "A".repeat(400) },
        },
      })
    ).contract_id;
    await owner.submitCommit(shown, { method: "post", path: "/terms/later.text", value: HOSTILE });
    hidden = (await owner.createContract({ readers: [key], state: { "/x.text": "secret" } })).contract_id;
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.on("pageerror", (e) => pageErrors.push(e.message));
    page.on("console", (m) => {
      if (/Content Security Policy/.test(m.text())) refused.push(m.text());
    });
  });
  after(async () => {
    await browser?.close();
    await servers?.close();
  });

  it("shows values carrying markup as text: nothing from a contract renders or runs", async () => {
    await page.goto(`${servers.restUrl}/#/c/${shown}`);
    const note = page.locator('#data li[data-path="/terms/note.text"] .value');
    await note.waitFor();
    assert.equal(await note.textContent(), HOSTILE);
    const logged = page.locator('#log tr[data-index="1"]');
    await logged.waitFor();
    assert.match((await logged.textContent()) ?? "", /= <img src=x onerror="window\.__xss=1"><script>/);
    // A pasted error body is the visitor's own text, but it is shown the same way.
    const pasted = {
      error: HOSTILE,
      code: "VALIDATION_FAILED",
      details: { candidates: [{ from: HOSTILE, to: "b", label: HOSTILE, failed: [{ property: HOSTILE, kind: "x" }] }] },
    };
    await page.fill("#explain-input", JSON.stringify(pasted));
    await page.click("#explain-button");
    await page.locator("#explain-out li").first().waitFor();
    assert.match((await page.locator("#explain-out").textContent()) ?? "", /<img src=x/);
    assert.equal(await page.locator("main img, main script, main iframe").count(), 0);
    // JSON of another shape (a candidate without its failed properties) is said to be unreadable, not thrown.
    await page.fill("#explain-input", JSON.stringify({ details: { candidates: [{ from: "a", to: "b" }] } }));
    await page.click("#explain-button");
    await page.locator("#explain-out p.error").waitFor();
    assert.equal(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss), undefined);
    assert.deepEqual(pageErrors, []);
    await page.locator('#live[data-status="live"]').waitFor();
    assert.deepEqual(refused, [], "the page's own scripts, styles, requests and socket are allowed");
    // Were markup ever to reach the page as HTML, the policy would still not run it.
    const ran = await page.locator("main").evaluate((main) => {
      const script = main.ownerDocument.createElement("script");
      script.textContent = "globalThis.__csp = 1";
      main.append(script);
      return (globalThis as unknown as { __csp?: number }).__csp;
    });
    assert.equal(ran, undefined);
    refused.length = 0;
  });

  it("answers a private, a missing or a malformed contract id with the message alone", async () => {
    const cases: [hash: string, id: string, code: string][] = [
      [hidden, hidden, "NOT_FOUND"],
      ["c_nobody_made_this", "c_nobody_made_this", "NOT_FOUND"],
      // A malformed escape is kept as typed; it used to throw in the router and leave the previous page up.
      ["%zz", "%zz", "INVALID_REQUEST"],
      // An escaped "?" is part of the id, not the start of a query: it used to open contract "c_a".
      ["c_a%3Fb", "c_a?b", "INVALID_REQUEST"],
    ];
    for (const [hash, id, code] of cases) {
      await page.goto(`${servers.restUrl}/#/c/${hash}`);
      const error = page.locator(`#contract-error[data-code="${code}"]`);
      await error.waitFor();
      assert.equal(await page.locator("h1 code").textContent(), id);
      // No empty diagram, log or explain box for a contract that is not there.
      assert.equal(await page.locator("#diagram, #log, #explain").count(), 0, hash);
    }
    assert.match((await page.locator("#contract-error").textContent()) ?? "", /^Invalid request/);
    assert.deepEqual(pageErrors, []);
    await page.goto(`${servers.restUrl}/#/c/${hidden}`);
    await page.locator('#contract-error[data-code="NOT_FOUND"]').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, "explorer-not-visible.png") });
  });

  it("says so when the list is asked for an offset past its end", async () => {
    await page.goto(`${servers.restUrl}/#/?offset=500`);
    const past = page.locator("#past-end");
    await past.waitFor();
    assert.equal(await past.locator("a").getAttribute("href"), "#/");
    assert.equal(await page.locator("tr[data-contract]").count(), 0);
  });

  it("pages the list oldest first, with the previous page older and the next newer", async () => {
    for (let i = 0; i < 50; i++) await owner.createContract({ state: { "/i.text": String(i) } });
    // Visible: `shown` and these 50 (the private one is not listed), in the hub's order: oldest first.
    const listed = (await new HubClient({ url: servers.restUrl, retries: 0 }).listContracts({ limit: 1000 }))
      .contracts as { contract_id: string; created_at: number }[];
    assert.equal(listed.length, 51);
    await page.goto(`${servers.restUrl}/#/`);
    await page.locator(`tr[data-contract="${listed[49]!.contract_id}"]`).waitFor();
    assert.equal(await page.locator("tr[data-contract]").first().getAttribute("data-contract"), listed[0]!.contract_id);
    assert.equal(await page.locator(".pager a[rel=next]").getAttribute("href"), "#/?offset=50");
    assert.equal(await page.locator(".pager a[rel=prev]").count(), 0);
    await page.locator(".pager a[rel=next]").click();
    await page.locator(`tr[data-contract="${listed[50]!.contract_id}"]`).waitFor();
    assert.equal(await page.locator("tr[data-contract]").count(), 1);
    assert.ok(listed[50]!.created_at >= listed[0]!.created_at);
    assert.equal(await page.locator(".pager a[rel=prev]").getAttribute("href"), "#/?offset=0");
    assert.equal(await page.locator(".pager a[rel=next]").count(), 0);
  });

  it("keeps a late answer for a page the visitor left from replacing the page they moved to", async () => {
    await page.goto(`${servers.restUrl}/#/`);
    await page.locator('#nav a[href="#/templates"]').waitFor();
    // Hold the catalogue's answer until the visitor is on the contract page.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let intercepted!: () => void;
    const reached = new Promise<void>((resolve) => {
      intercepted = resolve;
    });
    await page.route(/\/templates$/, async (route: Route) => {
      intercepted();
      await held;
      await route.continue();
    });
    const answered = page.waitForResponse(/\/templates$/);
    await page.locator('#nav a[href="#/templates"]').click();
    await reached;
    await page.goto(`${servers.restUrl}/#/c/${shown}`);
    await page.locator('#data li[data-path="/terms/note.text"]').waitFor();
    release();
    await (await answered).finished();
    // A round trip of the page's own after the held answer: its handler has run by then.
    await page.evaluate(() => fetch("/health").then((r) => r.text()));
    await page.unroute(/\/templates$/);
    assert.equal(await page.locator("h1 code").textContent(), shown);
    assert.equal(await page.locator("li[data-template]").count(), 0);
  });

  it("subscribes again after the hub refuses its subscription, and follows the commits", async () => {
    // The hub refuses a subscribe when the caller's rate limit or work budget (which a replay counts
    // against) is spent; spending it for real would starve the page's own REST calls too. So the
    // socket to the real hub refuses the page's first subscribe with the hub's answer for that.
    const live = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    let refused = 0;
    await live.routeWebSocket(/\/ws$/, (ws) => {
      const hub = ws.connectToServer();
      ws.onMessage((message) => {
        const frame = JSON.parse(String(message)) as { id?: number; method?: string };
        if (frame.method === "subscribe" && refused === 0) {
          refused++;
          const data = { code: "RATE_LIMITED", details: { reason: "work_budget", retry_after: 1 } };
          ws.send(JSON.stringify({ jsonrpc: "2.0", id: frame.id, error: { code: -32029, message: "Busy", data } }));
          return;
        }
        hub.send(message);
      });
    });
    try {
      await live.goto(`${servers.restUrl}/#/c/${shown}`);
      await live.locator('#live[data-status="live"]').waitFor();
      assert.equal(refused, 1);
      const { commit_count } = await owner.getState(shown);
      await owner.submitCommit(shown, { method: "post", path: "/terms/again.text", value: "again" });
      await live.locator(`#log tr[data-index="${commit_count}"]`).waitFor();
      await live.locator('#data li[data-path="/terms/again.text"]').waitFor();
    } finally {
      await live.close();
    }
  });

  it("shows a proposal made while its connection was down once it is back", async () => {
    const other = generateKeyPair();
    const model = "model Both {\n  initial a\n  a -> b [+GO +signed_by(/u/x.id) +signed_by(/u/y.id)]\n}";
    const state = { "/u/x.id": ownerKey, "/u/y.id": other.publicKey.toString("hex") };
    const { contract_id } = await owner.createContract({ model, state });
    const p = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    // The page's first socket is the real hub's until it is dropped here; the next one reaches the
    // hub only after the proposal is made, so no event can announce it.
    let first: WebSocketRoute | null = null;
    let proposed!: () => void;
    const made = new Promise<void>((resolve) => {
      proposed = resolve;
    });
    await p.routeWebSocket(/\/ws$/, async (ws) => {
      if (first === null) first = ws;
      else await made;
      ws.connectToServer();
    });
    try {
      await p.goto(`${servers.restUrl}/#/c/${contract_id}`);
      await p.locator('#live[data-status="live"]').waitFor();
      await first!.close();
      await p.locator('#live[data-status="offline"]').waitFor();
      const { head } = await owner.getState(contract_id);
      const commit = buildCommit(contract_id, head, [{ method: "action", value: "GO" }]);
      const ref = { hash: commit.hash, contract_id, parent: head, data: commit.data };
      commit.head.signatures = proposalSignatures(ref, [{ key: ownerSeed, as: "/u/x.id" }]);
      await owner.propose(contract_id, commit);
      proposed();
      await p.locator('#live[data-status="live"]').waitFor();
      const item = p.locator(`#proposals li[data-hash="${commit.hash}"]`);
      await item.waitFor();
      assert.equal(await item.locator(".missing").getAttribute("data-signers"), "/u/y.id");
    } finally {
      await p.close();
    }
  });

  it("drops the diagram's marks when a MODEL commit replaces the model they were drawn on", async () => {
    const model = "model M {\n  initial a\n  a -> a [+MODEL]\n  a -> b [+GO]\n}";
    const { contract_id } = await owner.createContract({ model });
    await page.goto(`${servers.restUrl}/#/c/${contract_id}`);
    await page.locator('#live[data-status="live"]').waitFor();
    let refused: { message: string; code: string; details: unknown } | null = null;
    try {
      await owner.submitCommit(contract_id, { method: "action", action: "STOP" });
    } catch (err) {
      refused = err as { message: string; code: string; details: unknown };
    }
    assert.ok(refused);
    await page.fill(
      "#explain-input",
      JSON.stringify({ error: refused.message, code: refused.code, details: refused.details }),
    );
    await page.click("#explain-button");
    // A straight edge has an empty box, which playwright calls hidden: wait for it to exist.
    await page.locator('svg.diagram path.edge.tried[data-from="a"][data-to="b"]').waitFor({ state: "attached" });
    // The new model puts another transition where a -> b was.
    const next = "model M {\n  initial a\n  a -> a [+MODEL]\n  a -> c [+STOP]\n  a -> b [+GO]\n}";
    await owner.submitCommit(contract_id, { method: "model", value: next });
    await page.locator('svg.diagram g.state[data-state="c"]').waitFor();
    assert.equal(await page.locator("svg.diagram path.edge.tried").count(), 0);
  });

  it("goes live even when one panel's first request is refused, and refreshes that panel on the next commit", async () => {
    // The hub refuses a long pull with 429 once the caller's work budget is spent; the data panel's
    // first pull gets that answer here. It used to stop the first load before the subscription.
    const p = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    let refusedPulls = 0;
    await p.route(new RegExp(`/contracts/${shown}/pull`), async (route: Route) => {
      if (refusedPulls > 0) return route.continue();
      refusedPulls++;
      const body = { error: "Work budget spent", code: "RATE_LIMITED", details: { reason: "work_budget" } };
      await route.fulfill({ status: 429, contentType: "application/json", body: JSON.stringify(body) });
    });
    try {
      await p.goto(`${servers.restUrl}/#/c/${shown}`);
      await p.locator('#live[data-status="live"]').waitFor();
      assert.equal(refusedPulls, 1);
      assert.equal(await p.locator("#data li").count(), 0);
      await owner.submitCommit(shown, { method: "post", path: "/terms/after.text", value: "after" });
      await p.locator('#data li[data-path="/terms/after.text"]').waitFor();
      await p.locator('#data li[data-path="/terms/note.text"]').waitFor();
      assert.equal(await p.locator("#current-state").textContent(), "a");
    } finally {
      await p.close();
    }
  });

  it("shows the latest synthesis when an earlier one answers after it", async () => {
    const synth = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let first = true;
    await synth.route(/\/contracts\/synthesize$/, async (route: Route) => {
      if (first) {
        first = false;
        await held;
      }
      await route.continue();
    });
    try {
      await synth.goto(`${servers.restUrl}/#/synthesize`);
      const slow = synth.waitForResponse(
        (r) => r.url().endsWith("/contracts/synthesize") && r.request().postData()?.includes("arbitrates") === true,
      );
      await synth.fill('textarea[name="description"]', "Alice buys a bike from Bob; Carol arbitrates disputes");
      await synth.fill('input[name="pattern_hint"]', "escrow");
      await synth.click('form.synth button[type="submit"]');
      await synth.fill('textarea[name="description"]', "Alice pays Bob 40 dollars for a lamp, held until it arrives");
      await synth.fill('input[name="pattern_hint"]', "");
      await synth.click('form.synth button[type="submit"]');
      await synth.locator('#synthesis [data-field="patterns"]').waitFor();
      assert.equal(await synth.locator('#synthesis [data-field="patterns"]').textContent(), "escrow");
      release();
      await (await slow).finished();
      // A round trip of the page's own after the late answer: its handler has run by then.
      await synth.evaluate(() => fetch("/health").then((r) => r.text()));
      assert.equal(await synth.locator('#synthesis [data-field="patterns"]').textContent(), "escrow");
    } finally {
      await synth.close();
    }
  });

  it("pages a long log a page at a time and to either end in one click", async () => {
    const { contract_id } = await owner.createContract({ state: { "/n.text": "0" } });
    let { head } = await owner.getState(contract_id);
    const commits = [];
    for (let i = 1; i <= 44; i++) {
      const c = signedWireCommit(contract_id, head, [{ method: "post", path: "/n.text", value: String(i) }]);
      commits.push(c);
      head = c.hash;
    }
    await owner.push(contract_id, commits);
    await page.goto(`${servers.restUrl}/#/c/${contract_id}`);
    const shownIndices = () =>
      page.locator("#log tbody tr").evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-index"))));
    await page.locator('#log tr[data-index="44"]').waitFor();
    assert.deepEqual(
      await shownIndices(),
      Array.from({ length: 20 }, (_, i) => 44 - i),
    );
    await page.click('#log button[data-page="oldest"]');
    await page.locator('#log tr[data-index="0"]').waitFor();
    assert.deepEqual(
      await shownIndices(),
      Array.from({ length: 20 }, (_, i) => 19 - i),
    );
    assert.equal(await page.locator('#log button[data-page="older"], #log button[data-page="oldest"]').count(), 0);
    await page.click('#log button[data-page="newer"]');
    await page.locator('#log tr[data-index="39"]').waitFor();
    assert.deepEqual(
      await shownIndices(),
      Array.from({ length: 20 }, (_, i) => 39 - i),
    );
    await page.click('#log button[data-page="newest"]');
    await page.locator('#log tr[data-index="44"]').waitFor();
    assert.equal(await page.locator('#log button[data-page="newer"], #log button[data-page="newest"]').count(), 0);
  });

  it("fills a log page whose entries carry big values: the hub ends such a page early", async () => {
    // Twelve values of a megabyte: the hub's log page stops past 8 MiB, at about nine entries.
    const { contract_id } = await owner.createContract({ state: { "/n.text": "0" } });
    let { head } = await owner.getState(contract_id);
    const commits = [];
    for (let i = 1; i <= 12; i++) {
      const value = `${i}:${"b".repeat(1_000_000)}`;
      const c = signedWireCommit(contract_id, head, [{ method: "post", path: `/b/${i}.text`, value }]);
      commits.push(c);
      head = c.hash;
    }
    await owner.push(contract_id, commits);
    const oneAnswer = await owner.getLog(contract_id, { limit: 20, offset: 0 });
    assert.ok(oneAnswer.commits.length < 13, "the hub's page ends early");
    await page.goto(`${servers.restUrl}/#/c/${contract_id}`);
    await page.locator('#log tr[data-index="12"]').waitFor();
    assert.deepEqual(
      await page.locator("#log tbody tr").evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-index")))),
      Array.from({ length: 13 }, (_, i) => 12 - i),
    );
  });

  it("says how large a model is instead of drawing one too large to draw", async () => {
    // 300 states in a ring with a chord from each: drawing it held the tab for every redraw.
    const lines = ["model Ring {", "  initial s0"];
    for (let i = 0; i < 300; i++) {
      lines.push(`  s${i} -> s${(i + 1) % 300} [+NEXT]`, `  s${i} -> s${(i * 7 + 3) % 300} [+JUMP]`);
    }
    const { contract_id } = await owner.createContract({ model: `${lines.join("\n")}\n}` });
    await page.goto(`${servers.restUrl}/#/c/${contract_id}`);
    const size = page.locator("#diagram-too-large");
    await size.waitFor();
    assert.deepEqual(await size.evaluate((e) => [e.dataset.states, e.dataset.transitions]), ["300", "600"]);
    assert.equal(await page.locator("svg.diagram").count(), 0);
    // What may follow is still listed.
    assert.deepEqual(
      (
        await page
          .locator("#valid-actions tr[data-action]")
          .evaluateAll((els) => els.map((e) => e.getAttribute("data-action")))
      ).sort(),
      ["JUMP", "NEXT"],
    );
  });

  it("says how many of a contract's assets and balances it shows when they fill more than a page", async () => {
    const { contract_id } = await owner.createContract({ model: null, rules: [] });
    let head = (await owner.getState(contract_id)).head;
    // 1,030 CREATEs, 64 a commit (the most one carries): past the hub's page of 1,000.
    for (let pushed = 0; pushed < 1030; ) {
      const commits = [];
      for (let c = 0; c < 4 && pushed < 1030; c++) {
        const ops = Array.from({ length: Math.min(64, 1030 - pushed) }, (_, j) => ({
          method: "create" as const,
          value: { asset_id: `a${String(pushed + j).padStart(5, "0")}`, quantity: 10, divisibility: 1 },
        }));
        const commit = buildCommit(contract_id, head, ops);
        commits.push(commit);
        head = commit.hash;
        pushed += ops.length;
      }
      await owner.push(contract_id, commits);
    }
    await page.goto(`${servers.restUrl}/#/c/${contract_id}`);
    const note = page.locator("#assets p.page-note");
    await note.first().waitFor();
    assert.deepEqual(await note.evaluateAll((ps) => ps.map((p) => p.getAttribute("data-shown"))), ["1000", "1000"]);
    assert.deepEqual(await note.evaluateAll((ps) => ps.map((p) => p.getAttribute("data-total"))), ["1030", "1030"]);
    assert.equal(await page.locator("#assets table").first().locator("tbody tr").count(), 1000);
  });

  it("keeps a 300-character state name from widening the page", async () => {
    const far = `s${"x".repeat(299)}`;
    const { contract_id } = await owner.createContract({ model: `model Far {\n  initial a\n  a -> ${far} [+FAR]\n}` });
    await page.goto(`${servers.restUrl}/#/c/${contract_id}`);
    await page.locator('#valid-actions tr[data-action="FAR"]').waitFor();
    // Drawn cut to 32 characters in its box; the full name is its data-state and tooltip.
    const state = page.locator(`svg.diagram g.state[data-state="${far}"]`);
    assert.equal(await state.locator("text").textContent(), `${far.slice(0, 31)}…`);
    assert.match((await state.locator("title").textContent()) ?? "", new RegExp(`^${far}`));
    assert.equal(await page.locator("html").evaluate((html) => html.scrollWidth - html.clientWidth), 0);
  });

  it("fits a phone-wide screen: wide tables and long values scroll or wrap inside the page", async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      const overflow = () => phone.locator("html").evaluate((html) => html.scrollWidth - html.clientWidth);
      const views: [hash: string, ready: string][] = [
        ["#/", "tr[data-contract] td.state:not([data-state=''])"],
        [`#/c/${shown}`, '#log tr[data-index="1"]'],
        ["#/templates/escrow", "svg.diagram g.state"],
      ];
      for (const [hash, ready] of views) {
        await phone.goto(`${servers.restUrl}/${hash}`);
        await phone.locator(ready).first().waitFor();
        if (hash.startsWith("#/c/")) await phone.locator('#data li[data-path="/terms/blob.text"]').waitFor();
        assert.equal(await overflow(), 0, `${hash} is wider than the screen`);
      }
      await phone.screenshot({ path: join(ARTIFACTS, "explorer-phone-template.png"), fullPage: true });
      await phone.goto(`${servers.restUrl}/#/synthesize`);
      await phone.locator('#nav a[href="#/synthesize"]').waitFor();
      const nav = await phone.locator('#nav a[href="#/synthesize"]').boundingBox();
      assert.ok(nav && nav.x + nav.width <= 390, `the navigation stays on screen: ${JSON.stringify(nav)}`);
      await phone.fill('textarea[name="description"]', "Alice buys a bike from Bob; Carol arbitrates disputes");
      await phone.click('form.synth button[type="submit"]');
      await phone.locator("#synthesis svg.diagram g.state").first().waitFor();
      assert.equal(await overflow(), 0, "#/synthesize is wider than the screen");
    } finally {
      await phone.close();
    }
  });
});
