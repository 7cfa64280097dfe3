/**
 * Proposals through each transport of a real hub on loopback (REST, JSON-RPC over HTTP,
 * JSON-RPC over WebSocket), and their `proposal` events on /ws.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ProposalView } from "../src/api/responses.js";
import type { ProposalNotification } from "../src/client/HubSocket.js";
import { proposalSignatures, verifiedProposalHash } from "../src/client/proposalSignatures.js";
import { isContractError } from "../src/contract/ContractError.js";
import { buildCommit } from "../src/contract/engine.js";
import { type LiveHub, type Party, startLiveHub } from "./e2e-transports.js";

const MODEL = `model Deal {
  initial open
  open -> cancelled [+CANCEL +signed_by(/users/buyer.id) +signed_by(/users/seller.id)]
  cancelled -> cancelled []
}`;

describe("proposals over every transport", { timeout: 60_000 }, () => {
  let live: LiveHub;
  let buyer: Party;
  let seller: Party;
  before(async () => {
    live = await startLiveHub();
    buyer = await live.party("buyer");
    seller = await live.party("seller");
  });
  after(() => live.close());

  it("proposes, lists, signs and reports events through REST, JSON-RPC and WebSocket", async () => {
    for (const transport of await live.transports()) {
      const created = (await transport.call(buyer, "createContract", {
        model: MODEL,
        rules: [],
        state: { "/users/buyer.id": buyer.key, "/users/seller.id": seller.key },
      })) as { contract_id: string };
      const id = created.contract_id;
      const { head } = await live.rest.getState(id);
      const events: ProposalNotification[] = [];
      const socket = await live.rest.withKey(seller.access.seed).connect();
      await socket.subscribe(id, () => {}, { onProposal: (e) => events.push(e) });

      const commit = buildCommit(id, head, [{ method: "action", value: "CANCEL" }]);
      commit.head.signatures = proposalSignatures(
        { hash: commit.hash, contract_id: id, parent: head, data: commit.data },
        [{ key: buyer.identity.seed, as: "/users/buyer.id" }],
      );
      const proposed = (await transport.call(buyer, "propose", { contract_id: id, commit })) as {
        proposal: ProposalView;
      };
      assert.equal(proposed.proposal.status, "open", transport.name);
      const listed = (await transport.call(null, "listProposals", { contract_id: id })) as {
        proposals: ProposalView[];
      };
      assert.deepEqual(
        listed.proposals.map((p) => p.hash),
        [commit.hash],
      );
      const got = (await transport.call(null, "getProposal", { contract_id: id, hash: commit.hash })) as {
        proposal: ProposalView;
      };
      assert.equal(verifiedProposalHash(got.proposal), commit.hash);
      const signatures = proposalSignatures(got.proposal, [{ key: seller.identity.seed, as: "/users/seller.id" }]);
      const signed = (await transport.call(seller, "signProposal", {
        contract_id: id,
        hash: commit.hash,
        signatures,
      })) as {
        proposal: ProposalView;
        commit?: { index: number; leaf_index?: number };
      };
      assert.equal(signed.proposal.status, "committed", transport.name);
      assert.equal(signed.commit?.index, 1);
      assert.ok(
        Number.isInteger(signed.commit?.leaf_index),
        `${transport.name}: the completed commit carries its log leaf`,
      );

      const refused = await transport.call(seller, "withdrawProposal", { contract_id: id, hash: commit.hash }).then(
        () => null,
        (err: unknown) => err,
      );
      assert.ok(isContractError(refused, "FORBIDDEN"), `${transport.name}: only the proposer or owner withdraws`);

      for (let i = 0; i < 100 && events.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      socket.close();
      assert.deepEqual(
        events.map((e) => [e.contract_id, e.proposal.hash, e.proposal.status]),
        [
          [id, commit.hash, "open"],
          [id, commit.hash, "committed"],
        ],
        transport.name,
      );
    }
  });

  it("refuses to sign a proposal whose content does not hash to its announced hash", () => {
    const commit = buildCommit("c1", "a".repeat(64), [{ method: "action", value: "CANCEL" }]);
    const tampered = {
      hash: commit.hash,
      contract_id: "c1",
      parent: "a".repeat(64),
      data: [{ method: "action" as const, value: "RELEASE" }],
    };
    assert.throws(
      () => proposalSignatures(tampered, [{ key: seller.identity.seed }]),
      (err: unknown) => isContractError(err, "VALIDATION_FAILED") && err.details?.reason === "hash_mismatch",
    );
  });
});
