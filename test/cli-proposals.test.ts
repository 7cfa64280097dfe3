/**
 * Co-signing from two terminals, every step a real process: a hub started with `contract-hub
 * start`, a buyer and a seller with their own key directories and working copies. The
 * escrow's CANCEL needs both signatures: the buyer's commit is refused with a hint to propose,
 * the buyer proposes, the seller lists, checks and signs, and both working copies end cancelled.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Actor, type HubProcess, setUpEscrow, startHubProcess, tempDir } from "./cli-support.js";

interface ProposalDoc {
  hash: string;
  status: string;
  signatures: Record<string, string>;
  missing: { predicate: string; signers: string[]; needed: number }[];
  commit_index?: number;
}

let hub: HubProcess;
let buyer: Actor;
let seller: Actor;

before(async () => {
  const base = tempDir("proposals");
  hub = await startHubProcess(join(base, "hub-data"));
  buyer = new Actor("buyer", base, hub.url);
  seller = new Actor("seller", base, hub.url);
});
after(async () => hub?.stop());

describe("an escrow CANCEL agreed by both parties from two terminals", { timeout: 180_000 }, () => {
  it("sets up the escrow and deposits", async () => {
    await setUpEscrow(buyer, seller, hub.url);
    await buyer.ok(["commit", "--action", "DEPOSIT"]);
    await buyer.ok(["push"]);
  });

  it("refuses the buyer's lone CANCEL and suggests propose", async () => {
    const r = await buyer.run(["commit", "--action", "CANCEL", "--json"]);
    assert.equal(r.code, 1);
    const err = r.json<{ code: string; details: { reason: string; hint: string; missing: ProposalDoc["missing"] } }>();
    assert.equal(err.code, "VALIDATION_FAILED");
    assert.equal(err.details.reason, "no_transition");
    assert.match(err.details.hint, /contract-hub propose/);
    assert.deepEqual(err.details.missing, [
      { predicate: "+signed_by(/users/seller.id)", signers: ["/users/seller.id"], needed: 1 },
    ]);
    const human = await buyer.run(["commit", "--action", "CANCEL"]);
    assert.match(human.stderr, /only a co-signer's signature is missing/);
  });

  it("proposes, withdraws, proposes again; the seller lists, signs by prefix, and both working copies pull it", async () => {
    const first = await buyer.ok<{ proposal: ProposalDoc }>([
      "propose",
      "--post",
      "/notes/reason.text",
      "changed my mind",
      "--action",
      "CANCEL",
    ]);
    assert.equal(first.proposal.status, "open");
    const withdrawn = await buyer.ok<{ proposal: ProposalDoc }>(["withdraw", first.proposal.hash.slice(0, 10)]);
    assert.equal(withdrawn.proposal.status, "withdrawn");

    const { proposal } = await buyer.ok<{ proposal: ProposalDoc }>(["propose", "--action", "CANCEL"]);
    assert.equal(proposal.status, "open");
    assert.deepEqual(Object.keys(proposal.signatures), ["/users/buyer.id"]);
    assert.deepEqual(proposal.missing, [
      { predicate: "+signed_by(/users/seller.id)", signers: ["/users/seller.id"], needed: 1 },
    ]);

    const listed = await seller.ok<{ proposals: ProposalDoc[] }>(["proposals"]);
    assert.deepEqual(
      listed.proposals.map((p) => p.hash),
      [proposal.hash],
    );
    const shown = await seller.run(["proposals"]);
    assert.match(shown.stdout, /action CANCEL/);
    assert.match(shown.stdout, /still needs 1 signature\(s\) for \+signed_by\(\/users\/seller\.id\)/);

    const signed = await seller.run(["sign", proposal.hash.slice(0, 8)]);
    assert.equal(signed.code, 0, signed.stderr);
    assert.match(signed.stdout, /deposited -> cancelled by CANCEL/);
    assert.match(signed.stdout, /Complete: appended at index 2/);

    const sellerStatus = await seller.ok<{ current_state: string; ahead: number; behind: number }>(["status"]);
    assert.deepEqual([sellerStatus.current_state, sellerStatus.ahead, sellerStatus.behind], ["cancelled", 0, 0]);
    const pulled = await buyer.ok<{ pulled: number; state: { current_state: string } }>(["pull"]);
    assert.equal(pulled.pulled, 1);
    assert.equal(pulled.state.current_state, "cancelled");
    const log = await buyer.ok<{ signers: string[] }[]>(["log"]);
    assert.deepEqual(new Set(log[2]!.signers), new Set([`ed25519:${buyer.publicKey}`, `ed25519:${seller.publicKey}`]));
    const committed = await buyer.ok<{ proposals: ProposalDoc[] }>(["proposals", "--status", "committed"]);
    assert.equal(committed.proposals[0]?.commit_index, 2);
  });
});
