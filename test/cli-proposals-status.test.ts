/**
 * The co-signing commands on proposals that are no longer open, every step a real process:
 * signing a committed proposal is an idempotent success that pulls it, a prefix finds a
 * proposal of any status (so the user hears its real status), a bad `--status` is a usage
 * error, and the unpushed-commits hint names the command to run again.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Actor, type HubProcess, setUpEscrow, startHubProcess, tempDir } from "./cli-support.js";

interface ProposalDoc {
  hash: string;
  status: string;
  commit_index?: number;
}
interface ErrorDoc {
  code: string;
  details: { reason: string; hint?: string; status?: string };
}

let hub: HubProcess;
let buyer: Actor;
let seller: Actor;

before(async () => {
  const base = tempDir("proposals-status");
  hub = await startHubProcess(join(base, "hub-data"));
  buyer = new Actor("buyer", base, hub.url);
  seller = new Actor("seller", base, hub.url);
});
after(async () => hub?.stop());

describe("proposal commands on settled proposals", { timeout: 180_000 }, () => {
  let cancel: ProposalDoc;
  let other: ProposalDoc;

  it("sets up an escrow with two CANCEL proposals, and refuses a bad --status as a usage error", async () => {
    await setUpEscrow(buyer, seller, hub.url);
    await buyer.ok(["commit", "--action", "DEPOSIT"]);
    await buyer.ok(["push"]);
    cancel = (await buyer.ok<{ proposal: ProposalDoc }>(["propose", "--action", "CANCEL"])).proposal;
    other = (
      await buyer.ok<{ proposal: ProposalDoc }>(["propose", "--post", "/notes/why.text", "other", "--action", "CANCEL"])
    ).proposal;
    assert.equal(other.status, "open");
    const bogus = await seller.run(["proposals", "--status", "bogus"]);
    assert.equal(bogus.code, 2, bogus.stderr);
  });

  it("finds a stale or withdrawn proposal by prefix and reports its status", async () => {
    const signed = await seller.ok<{ proposal: ProposalDoc }>(["sign", cancel.hash.slice(0, 10)]);
    assert.equal(signed.proposal.status, "committed");
    assert.equal(signed.proposal.commit_index, 2);
    const sign = await seller.run(["sign", other.hash.slice(0, 10), "--json"]);
    assert.equal(sign.code, 1);
    assert.equal(sign.json<ErrorDoc>().code, "CONFLICT");
    assert.equal(sign.json<ErrorDoc>().details.reason, "proposal_stale");
    // The hub lets its proposer withdraw a stale proposal: found by prefix, it is.
    const withdrawn = await buyer.ok<{ proposal: ProposalDoc }>(["withdraw", other.hash.slice(0, 10)]);
    assert.equal(withdrawn.proposal.status, "withdrawn");
    const late = await seller.run(["sign", other.hash.slice(0, 10), "--json"]);
    assert.equal(late.code, 1);
    assert.equal(late.json<ErrorDoc>().details.reason, "proposal_withdrawn");
  });

  it("signs a committed proposal idempotently: exit 0, its index, and the working copy pulled", async () => {
    const again = await buyer.ok<{ proposal: ProposalDoc }>(["sign", cancel.hash.slice(0, 10)]);
    assert.equal(again.proposal.status, "committed");
    assert.equal(again.proposal.commit_index, 2);
    const status = await buyer.ok<{ current_state: string; behind: number }>(["status"]);
    assert.deepEqual([status.current_state, status.behind], ["cancelled", 0]);
    const human = await seller.run(["sign", cancel.hash]);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /index 2/);
  });

  it("tells a user with unpushed commits to push, then run the same command again", async () => {
    await seller.ok(["commit", "--post", "/notes/late.text", "late"]);
    const sign = await seller.run(["sign", cancel.hash, "--json"]);
    assert.equal(sign.code, 1);
    assert.equal(sign.json<ErrorDoc>().details.reason, "unpushed_commits");
    assert.match(sign.json<ErrorDoc>().details.hint ?? "", /then sign again/);
    const propose = await seller.run(["propose", "--post", "/notes/more.text", "more", "--json"]);
    assert.equal(propose.code, 1);
    assert.match(propose.json<ErrorDoc>().details.hint ?? "", /then propose again/);
  });
});
