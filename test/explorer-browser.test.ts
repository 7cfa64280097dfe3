/**
 * The explorer in a real browser (Debian's chromium driven by playwright-core) against the real
 * hub on loopback: an escrow contract's page draws the model with the current state and the
 * valid next action, explains a real rejected commit on the diagram, and follows a commit
 * pushed through the API over the WebSocket without a reload; against a hub process that requires
 * a real witness process's cosignature, the checkpoint panel checks the cosignature in the
 * browser and reports the quorum met. Screenshots go to .test-artifacts/.
 * Without /usr/bin/chromium the suite is skipped, except under CI, where it must run.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { proposalSignatures } from "../src/client/proposalSignatures.js";
import { signedSubmitBody } from "../src/client/signedCommits.js";
import type { ContractError } from "../src/contract/ContractError.js";
import { buildCommit } from "../src/contract/engine.js";
import { hubOperations } from "../src/synthesis/hubOperations.js";
import { TEMPLATE_CATALOGUE } from "../src/templates/templateCatalogue.js";
import { type LiveHub, type Party, startLiveHub } from "./e2e-transports.js";
import { checkCosignatureLine } from "./support/cosignatureReference.js";
import {
  ARTIFACTS,
  type ExplorerHub,
  launch,
  prepare,
  skipWithoutChromium,
  startExplorerHub,
} from "./support/explorerBrowser.js";
import { killAllHubs } from "./support/hubProcess.js";
import { startWitnessedHub, type WitnessedHub } from "./support/witnessedHub.js";
import { killAllWitnesses } from "./support/witnessProcess.js";

const skip = skipWithoutChromium;

const ESCROW = `model Escrow {
  initial init
  init -> deposited [+DEPOSIT +signed_by(/users/buyer.id)]
  deposited -> delivered [+DELIVER +signed_by(/users/seller.id)]
  delivered -> released [+RELEASE +signed_by(/users/buyer.id)]
  deposited -> cancelled [+CANCEL +signed_by(/users/buyer.id) +signed_by(/users/seller.id)]
  released -> released []
  cancelled -> cancelled []
}`;
/** Only the buyer's signature releases the funds: holds everywhere. */
const RELEASE_RULE = "export default rule { formula { always(!released -> [-signed_by(/users/buyer.id)] !released) } }";
/** "Nothing deposited yet": holds at its anchor (the initial state), so the hub accepts it, and fails once deposited. */
const NOT_DEPOSITED = "export default rule { formula { !deposited } }";

describe("explorer in a real browser", { skip }, () => {
  let live: LiveHub;
  let buyer: Party;
  let seller: Party;
  let browser: Browser;
  let page: Page;
  let id: string;

  before(async () => {
    prepare();
    live = await startLiveHub();
    buyer = await live.party("buyer");
    seller = await live.party("seller");
    const created = await live.rest.withKey(buyer.access.seed).createContract({
      model: ESCROW,
      rules: [RELEASE_RULE, NOT_DEPOSITED],
      state: { "/users/buyer.id": buyer.key, "/users/seller.id": seller.key, "/terms/item.text": "bicycle" },
    });
    id = created.contract_id;
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  });
  after(async () => {
    await browser?.close();
    await live?.close();
  });

  it("lists the contract on the front page", async () => {
    await page.goto(`${live.servers.restUrl}/`);
    const row = page.locator(`tr[data-contract="${id}"]`);
    await row.waitFor();
    assert.equal(await row.locator("a").getAttribute("href"), `#/c/${id}`);
    assert.equal(await row.locator("a").textContent(), id);
    await row.locator('td.state[data-state="init"]').waitFor();
    assert.equal(await row.locator("td.state").textContent(), "init");
    assert.equal(await row.locator("code.key").textContent(), `ed25519:${buyer.key}`);
    await page.screenshot({ path: join(ARTIFACTS, "explorer-list.png") });
  });

  it("draws the model with the current state and the valid next action with its signer", async () => {
    await page.goto(`${live.servers.restUrl}/#/c/${id}`);
    await page.locator('svg.diagram g.state[data-state="init"]').waitFor();
    const states = await page
      .locator("svg.diagram g.state")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-state")));
    assert.deepEqual(states.sort(), ["cancelled", "delivered", "deposited", "init", "released"]);
    const current = await page
      .locator("svg.diagram g.state.current")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-state")));
    assert.deepEqual(current, ["init"]);
    const valid = page.locator('svg.diagram path.edge.valid[data-from="init"][data-to="deposited"]');
    assert.equal(await valid.count(), 1);
    assert.equal(await page.locator("svg.diagram path.edge.valid").count(), 1, "only DEPOSIT may follow init");
    const label = page.locator("svg.diagram text.edge-label.valid");
    assert.equal(await label.getAttribute("data-signers"), "/users/buyer.id");
    assert.match((await label.textContent()) ?? "", /DEPOSIT/);
    assert.equal(await page.locator("#current-state").textContent(), "init");
    // Rules checked at the current state; the data state from the genesis posts; the genesis in the log.
    assert.deepEqual(
      await page.locator("ul.rules li").evaluateAll((els) => els.map((e) => e.getAttribute("data-holds"))),
      ["true", "true"],
    );
    assert.match((await page.locator('#data li[data-path="/terms/item.text"]').textContent()) ?? "", /Text.*bicycle/);
    assert.match((await page.locator('#data li[data-path="/users/buyer.id"]').textContent()) ?? "", /Identity/);
    assert.equal(await page.locator('#log tr[data-index="0"] .method').textContent(), "genesis");
    await page.locator('#live[data-status="live"]').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, "explorer-contract-init.png"), fullPage: true });
  });

  it("explains a real rejected commit and marks the transitions it tried on the diagram", async () => {
    const st = await live.rest.getState(id);
    const unsigned = signedSubmitBody(id, st.head, { method: "action", action: "DEPOSIT" }, []);
    let rejected: ContractError | null = null;
    try {
      await live.rest.withKey(buyer.access.seed).submitCommit(id, unsigned);
    } catch (err) {
      rejected = err as ContractError;
    }
    assert.ok(rejected, "an unsigned DEPOSIT must be refused");
    const body = { error: rejected.message, code: rejected.code, details: rejected.details };
    await page.fill("#explain-input", JSON.stringify(body));
    await page.click("#explain-button");
    const candidate = page.locator('#explain-out li[data-candidate="init>deposited"]');
    await candidate.waitFor();
    assert.match(
      (await candidate.textContent()) ?? "",
      /\+signed_by\(\/users\/buyer\.id\).*required, but not satisfied/,
    );
    assert.equal(await page.locator('svg.diagram path.edge.tried[data-from="init"][data-to="deposited"]').count(), 1);
    assert.equal(await page.locator('svg.diagram g.state.on-path[data-state="init"]').count(), 1);
    await page.screenshot({ path: join(ARTIFACTS, "explorer-explanation.png"), fullPage: true });
  });

  it("follows a commit pushed through the API without reloading", async () => {
    // A reload would drop this marker; the live update must keep it.
    await page.evaluate(() => {
      (globalThis as unknown as { explorerMarker: number }).explorerMarker = 42;
    });
    const st = await live.rest.getState(id);
    const deposit = signedSubmitBody(id, st.head, { method: "action", action: "DEPOSIT" }, [
      { key: buyer.identity.seed, as: "/users/buyer.id" },
    ]);
    const result = await live.rest.withKey(buyer.access.seed).submitCommit(id, deposit);
    assert.equal(result.new_state.current_state, "deposited");

    await page.locator('svg.diagram g.state.current[data-state="deposited"]').waitFor();
    const current = await page
      .locator("svg.diagram g.state.current")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-state")));
    assert.deepEqual(current, ["deposited"]);
    assert.equal(await page.locator("#current-state").textContent(), "deposited");
    const valid = await page
      .locator("svg.diagram path.edge.valid")
      .evaluateAll((els) => els.map((e) => `${e.getAttribute("data-from")}>${e.getAttribute("data-to")}`));
    assert.deepEqual(valid.sort(), ["deposited>cancelled", "deposited>delivered"]);
    await page.locator('#log tr[data-index="1"]').waitFor();
    assert.equal(await page.locator('#log tr[data-index="1"] .badge.action').textContent(), "DEPOSIT");
    // `!deposited` no longer holds at the new state; the page says so.
    await page.locator('ul.rules li[data-rule="1"][data-holds="false"]').waitFor();
    assert.equal(await page.evaluate(() => (globalThis as unknown as { explorerMarker?: number }).explorerMarker), 42);
    await page.screenshot({ path: join(ARTIFACTS, "explorer-contract-deposited.png"), fullPage: true });
  });

  it("verifies the head's inclusion in the hub's signed log in the browser", async () => {
    const mark = page.locator('#head-verified[data-verified="true"]');
    await mark.waitFor();
    const { leaf_index } = await live.rest.inclusionProof((await live.rest.getState(id)).head);
    assert.match(
      (await mark.textContent()) ?? "",
      new RegExp(`Verified in your browser: the head is leaf ${leaf_index} `),
    );
    assert.match(
      (await page.locator("#checkpoint pre.checkpoint").textContent()) ?? "",
      /^contract-hub\/[0-9a-f]{16}\n/,
    );
  });

  it("shows an open proposal with who still has to sign, live, and drops it once it is committed", async () => {
    const { head } = await live.rest.getState(id);
    const commit = buildCommit(id, head, [{ method: "action", value: "CANCEL" }]);
    const ref = { hash: commit.hash, contract_id: id, parent: head, data: commit.data };
    commit.head.signatures = proposalSignatures(ref, [{ key: buyer.identity.seed, as: "/users/buyer.id" }]);
    await live.rest.withKey(buyer.access.seed).propose(id, commit);

    const item = page.locator(`#proposals li[data-hash="${commit.hash}"]`);
    await item.waitFor();
    assert.equal(await item.locator(".signed").textContent(), "/users/buyer.id");
    assert.equal(await item.locator(".missing").getAttribute("data-signers"), "/users/seller.id");

    const signatures = proposalSignatures(ref, [{ key: seller.identity.seed, as: "/users/seller.id" }]);
    await live.rest.withKey(seller.access.seed).signProposal(id, commit.hash, signatures);
    await page.locator('svg.diagram g.state.current[data-state="cancelled"]').waitFor();
    await item.waitFor({ state: "detached" });
    await page.screenshot({ path: join(ARTIFACTS, "explorer-proposals.png"), fullPage: true });
  });
});

describe("explorer templates and synthesis in a real browser", { skip }, () => {
  let servers: ExplorerHub;
  let browser: Browser;
  let page: Page;

  before(async () => {
    prepare();
    // No language-model key: the pattern synthesizer answers, and nothing is stored.
    servers = await startExplorerHub("explorer-templates", {
      templates: TEMPLATE_CATALOGUE,
      synthesis: hubOperations({}),
    });
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  });
  after(async () => {
    await browser?.close();
    await servers?.close();
  });

  it("shows the template catalogue and draws a template's model with its rules checked", async () => {
    await page.goto(`${servers.restUrl}/`);
    await page.locator('#nav a[href="#/templates"]').click();
    await page.locator('li[data-template="escrow"] a').click();
    await page.locator('svg.diagram g.state[data-state="init"]').waitFor();
    assert.equal(await page.locator("svg.diagram g.state.current").getAttribute("data-state"), "init");
    const verdicts = await page
      .locator("ul.rules li")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-holds")));
    assert.ok(verdicts.length > 0 && verdicts.every((v) => v === "true"), `template rules hold initially: ${verdicts}`);
    await page.screenshot({ path: join(ARTIFACTS, "explorer-template.png"), fullPage: true });
  });

  it("synthesizes a model from a description and draws it without creating a contract", async () => {
    await page.locator('#nav a[href="#/synthesize"]').click();
    await page.fill('textarea[name="description"]', "Alice buys a bike from Bob; Carol arbitrates disputes");
    await page.fill('input[name="pattern_hint"]', "escrow");
    await page.click('form.synth button[type="submit"]');
    await page.locator("#synthesis svg.diagram g.state").first().waitFor();
    assert.ok((await page.locator("#synthesis svg.diagram g.state").count()) >= 3);
    assert.equal(await page.locator('#synthesis [data-field="patterns"]').textContent(), "escrow + arbiter");
    assert.match((await page.locator('#synthesis [data-field="confidence"]').textContent()) ?? "", /^confidence \d+%$/);
    await page.fill('textarea[name="description"]', "Alice pays Bob 40 dollars for a lamp, held until it arrives");
    await page.fill('input[name="pattern_hint"]', "");
    await page.click('form.synth button[type="submit"]');
    await page.locator('#synthesis [data-field="patterns"]', { hasText: /^escrow$/ }).waitFor();
    assert.ok(
      (await page.locator("#synthesis .synth-warnings li.warning").allTextContents()).some((w) =>
        w.includes("40 dollars"),
      ),
    );
    await page.fill('textarea[name="description"]', "Write a haiku about the sea");
    await page.click('form.synth button[type="submit"]');
    await page.locator("#synthesis ul.closest button").first().waitFor();
    assert.equal(await page.locator("#synthesis ul.closest button").count(), 3);
    const listed = (await (await fetch(`${servers.restUrl}/contracts`)).json()) as { total: number };
    assert.equal(listed.total, 0, "synthesis creates nothing");
    await page.screenshot({ path: join(ARTIFACTS, "explorer-synthesis.png"), fullPage: true });
  });
});

describe("explorer of a hub that requires witness cosignatures, in a real browser", { skip }, () => {
  let dir: string;
  let witnessed: WitnessedHub;
  let browser: Browser;
  let page: Page;

  before(async () => {
    prepare();
    dir = mkdtempSync(join(tmpdir(), "explorer-witness-"));
    witnessed = await startWitnessedHub(dir);
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  });
  after(async () => {
    await browser?.close();
    await killAllHubs();
    await killAllWitnesses();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("verifies the witness's cosignature in the browser and reports the quorum met", async () => {
    const { hub, witness, contractId, treeSize } = witnessed;
    await page.goto(`${hub.url}/#/c/${contractId}`);
    await page.locator('#head-verified[data-verified="true"]').waitFor();
    const section = page.locator("#witnesses");
    await section.waitFor();
    assert.deepEqual(await section.evaluate((e) => [e.dataset.quorum, e.dataset.verifiedCount, e.dataset.quorumMet]), [
      "1",
      "1",
      "true",
    ]);
    assert.equal(await page.locator("#witness-quorum").getAttribute("data-quorum-met"), "true");

    // The note the page shows is the one served; its cosignature's timestamp, read by the reference check, is the row's.
    const note = (await page.locator("#checkpoint pre.checkpoint").textContent()) ?? "";
    assert.equal(Number(note.split("\n")[1]), treeSize);
    const line = note.split("\n").find((l) => l.startsWith("\u2014 witness.test/one "));
    assert.ok(line, note);
    const timestamp = checkCosignatureLine(line, witness.verifierKey, note.slice(0, note.indexOf("\n\n") + 1));
    const rows = await page
      .locator("#witnesses tr[data-witness]")
      .evaluateAll((els) =>
        els.map((e) => [
          e.getAttribute("data-witness"),
          e.getAttribute("data-cosignature"),
          e.getAttribute("data-timestamp"),
        ]),
      );
    assert.deepEqual(rows, [
      ["witness.test/one", "verified", String(timestamp)],
      ["witness.test/gone", "absent", null],
    ]);
    await page.screenshot({ path: join(ARTIFACTS, "explorer-witnesses.png"), fullPage: true });
  });
});
