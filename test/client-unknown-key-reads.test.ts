/**
 * A client whose access key this hub does not know (registered elsewhere, or revoked) reads
 * public contracts as an anonymous caller does: the SDK asks a refused GET again unsigned
 * (docs/api.md, "Client SDK"). A private contract still answers the key's own refusal, and
 * writes are never sent again. Over a real hub on loopback.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { ContractError } from "../src/contract/ContractError.js";
import { generateKeyPair } from "../src/contract/keys.js";
import { type LiveHub, type Party, startLiveHub } from "./e2e-transports.js";

let live: LiveHub;
let alice: Party;

before(async () => {
  live = await startLiveHub();
  alice = await live.party("alice");
  const owner = live.rest.withKey(alice.access.seed);
  await owner.createContract({ contract_id: "c_public" });
  await owner.createContract({ contract_id: "c_private", readers: [alice.key] });
});
after(async () => live?.close());

async function refusal(p: Promise<unknown>): Promise<ContractError> {
  const err = await p.then(
    () => assert.fail("answered"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ContractError, String(err));
  return err;
}

it("reads a public contract with a key the hub does not know", async () => {
  const stranger = live.rest.withKey(generateKeyPair().seed);
  const contract = (await stranger.getContract("c_public")) as { contract_id?: string };
  assert.equal(contract.contract_id, "c_public");
  const pulled = await stranger.pull("c_public");
  assert.equal(pulled.contract_id, "c_public");
  assert.equal(pulled.commits.length, 1);
});

it("answers the key's refusal for a private contract, not the anonymous 404", async () => {
  const stranger = live.rest.withKey(generateKeyPair().seed);
  const err = await refusal(stranger.getState("c_private"));
  assert.equal(err.code, "UNAUTHORIZED");
  assert.equal(err.details?.reason, "unknown_key");
});

it("does not send a write again unsigned", async () => {
  const stranger = live.rest.withKey(generateKeyPair().seed);
  const err = await refusal(stranger.createContract({ contract_id: "c_stranger" }));
  assert.equal(err.code, "UNAUTHORIZED");
  assert.equal(err.details?.reason, "unknown_key");
  const missing = await refusal(live.rest.getContract("c_stranger"));
  assert.equal(missing.code, "NOT_FOUND");
});
