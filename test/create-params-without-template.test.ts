/**
 * `POST /contracts` takes `params` only with a `template` (docs/api.md): parameters sent
 * without one (e.g. the template's name misspelled, or left out) would otherwise be dropped
 * and the contract created with no model at all, one that accepts any commit. Such a body is
 * 400 INVALID_REQUEST naming `params`, and no contract is created; over a real hub on loopback.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { ContractError } from "../src/contract/ContractError.js";
import { type LiveHub, type Party, startLiveHub, type Transport } from "./e2e-transports.js";

let live: LiveHub;
let alice: Party;
let bob: Party;
let transports: Transport[];

before(async () => {
  live = await startLiveHub();
  alice = await live.party("alice");
  bob = await live.party("bob");
  transports = await live.transports();
});
after(async () => live?.close());

it("refuses params without a template on every transport, and creates nothing", async () => {
  for (const t of transports) {
    const contractId = `p_${t.name.replace(/\W/g, "")}`;
    const params = { buyer: alice.key, seller: bob.key };
    const err = await t.call(alice, "createContract", { contract_id: contractId, templte: "escrow", params }).then(
      () => assert.fail(`${t.name}: created`),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ContractError, String(err));
    assert.equal(err.code, "INVALID_REQUEST", t.name);
    assert.equal(err.details?.reason, "params_without_template", t.name);
    assert.equal(err.details?.field, "params", t.name);
    const missing = await t.call(alice, "getContract", { contract_id: contractId }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(missing instanceof ContractError && missing.code === "NOT_FOUND", t.name);
    const made = (await t.call(alice, "createContract", { contract_id: contractId })) as { contract_id: string };
    assert.equal(made.contract_id, contractId, t.name);
  }
});
