/**
 * One escrow scenario run through REST, JSON-RPC over HTTP and JSON-RPC over WebSocket against
 * the real hub on loopback: create, signed DEPOSIT/DELIVER/RELEASE, a refused unsigned commit,
 * a stale parent, log and commit reads, push/pull, and the error codes of each failure.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { signedSubmitBody, signedWireCommit } from "../src/client/signedCommits.js";
import type { ContractError } from "../src/contract/ContractError.js";
import { genesisData } from "../src/contract/engine.js";
import type { StateView, SubmitCommitResult } from "../src/hub/HubApi.js";
import { type LiveHub, type Party, startLiveHub, type Transport } from "./e2e-transports.js";

const ESCROW = `model Escrow {
  initial init
  init -> deposited [+DEPOSIT +signed_by(/users/buyer.id)]
  deposited -> delivered [+DELIVER +signed_by(/users/seller.id)]
  delivered -> released [+RELEASE +signed_by(/users/buyer.id)]
  released -> released []
}`;

async function rejects(p: Promise<unknown>, code: string): Promise<ContractError> {
  try {
    await p;
  } catch (err) {
    assert.equal((err as ContractError).code, code, (err as Error).message);
    return err as ContractError;
  }
  assert.fail(`expected ${code}, the call succeeded`);
}

let live: LiveHub;
let buyer: Party;
let seller: Party;
let stranger: Party;
let transports: Transport[];

before(async () => {
  live = await startLiveHub();
  buyer = await live.party("buyer");
  seller = await live.party("seller");
  stranger = await live.party("stranger");
  transports = await live.transports();
});
after(async () => live.close());

for (const name of ["REST", "JSON-RPC", "WebSocket"]) {
  describe(`escrow scenario over ${name}`, () => {
    it("runs create → DEPOSIT → DELIVER → RELEASE with signatures, refusing what it must", async () => {
      const t = transports.find((x) => x.name === name)!;
      const state = { "/users/buyer.id": buyer.key, "/users/seller.id": seller.key };
      await rejects(t.call(null, "createContract", { model: ESCROW, rules: [], state }), "UNAUTHORIZED");
      const { contract_id: id } = (await t.call(buyer, "createContract", { model: ESCROW, rules: [], state })) as {
        contract_id: string;
      };
      let st = (await t.call(null, "getContractState", { contract_id: id })) as StateView;
      assert.equal(st.current_state, "init");
      assert.deepEqual(
        st.valid_actions.map((a) => [a.action, a.required_signer]),
        [["DEPOSIT", "/users/buyer.id"]],
      );

      // Unsigned, signed by the wrong party, and unauthenticated: all refused.
      const deposit = { method: "action", action: "DEPOSIT" };
      await rejects(t.call(buyer, "submitCommit", { contract_id: id, ...deposit }), "VALIDATION_FAILED");
      const wrongSigner = signedSubmitBody(id, st.head, deposit, [
        { key: seller.identity.seed, as: "/users/buyer.id" },
      ]);
      await rejects(t.call(buyer, "submitCommit", wrongSigner as Record<string, unknown>), "VALIDATION_FAILED");
      const signedDeposit = signedSubmitBody(id, st.head, deposit, [
        { key: buyer.identity.seed, as: "/users/buyer.id" },
      ]);
      await rejects(t.call(null, "submitCommit", signedDeposit as Record<string, unknown>), "UNAUTHORIZED");

      const dep = (await t.call(buyer, "submitCommit", signedDeposit as Record<string, unknown>)) as SubmitCommitResult;
      assert.equal(dep.index, 1);
      assert.equal(dep.new_state.current_state, "deposited");
      // An idempotent retry answers the stored result.
      const retry = (await t.call(
        buyer,
        "submitCommit",
        signedDeposit as Record<string, unknown>,
      )) as SubmitCommitResult;
      assert.equal(retry.commit_hash, dep.commit_hash);

      const deliver = { method: "post", path: "/notes/tracking.text", value: "T-1", action_labels: ["DELIVER"] };
      const signedDeliver = signedSubmitBody(id, dep.commit_hash, deliver, [
        { key: seller.identity.seed, as: "/users/seller.id" },
      ]);
      const del = (await t.call(
        seller,
        "submitCommit",
        signedDeliver as Record<string, unknown>,
      )) as SubmitCommitResult;
      assert.equal(del.new_state.current_state, "delivered");
      // The same DELIVER again on the old parent is now stale.
      const stale = signedSubmitBody(id, dep.commit_hash, { ...deliver, value: "T-2" }, [
        { key: seller.identity.seed, as: "/users/seller.id" },
      ]);
      const conflict = await rejects(t.call(seller, "submitCommit", stale as Record<string, unknown>), "CONFLICT");
      assert.ok(conflict.details);

      const release = signedSubmitBody(id, del.commit_hash, { method: "action", action: "RELEASE" }, [
        { key: buyer.identity.seed, as: "/users/buyer.id" },
      ]);
      const rel = (await t.call(buyer, "submitCommit", release as Record<string, unknown>)) as SubmitCommitResult;
      assert.equal(rel.new_state.current_state, "released");
      st = (await t.call(null, "getContractState", { contract_id: id })) as StateView;
      assert.equal(st.commit_count, 4);
      assert.equal(st.head, rel.commit_hash);

      const log = (await t.call(null, "getLog", { contract_id: id })) as {
        commits: { method: string; index: number; signer?: string }[];
        total: number;
      };
      assert.equal(log.total, 4);
      assert.deepEqual(
        log.commits.map((c) => c.method),
        ["genesis", "action", "post", "action"],
      );
      assert.equal(log.commits[1]?.signer, `ed25519:${buyer.key}`);
      const one = (await t.call(null, "getCommit", { contract_id: id, hash: del.commit_hash })) as { index: number };
      assert.equal(one.index, 2);

      const all = (await t.call(null, "pull", { contract_id: id })) as { commits: { hash: string }[]; head: string };
      assert.equal(all.commits.length, 4);
      assert.equal(all.head, rel.commit_hash);
      const since = (await t.call(null, "pull", { contract_id: id, since: dep.commit_hash })) as {
        commits: { hash: string }[];
      };
      assert.deepEqual(
        since.commits.map((c) => c.hash),
        [del.commit_hash, rel.commit_hash],
      );

      // Errors: unknown ids, unknown hashes, malformed hashes, strangers' grants.
      await rejects(t.call(null, "getContract", { contract_id: `${id}-nope` }), "NOT_FOUND");
      await rejects(t.call(null, "getCommit", { contract_id: id, hash: "0".repeat(64) }), "NOT_FOUND");
      await rejects(t.call(null, "getCommit", { contract_id: id, hash: "XYZ" }), "INVALID_REQUEST");
      await rejects(t.call(null, "pull", { contract_id: id, since: "0".repeat(64) }), "NOT_FOUND");
      await rejects(
        t.call(stranger, "grant", { contract_id: id, identity: stranger.key, role: "writer" }),
        "FORBIDDEN",
      );
    });

    it("pushes a new contract from its genesis, skips duplicates, and refuses a fork", async () => {
      const t = transports.find((x) => x.name === name)!;
      const id = `pushed-${name.replace(/\W/g, "")}`;
      const genesis = signedWireCommit(id, null, genesisData({ model: null, rules: [], owner: seller.key, state: {} }));
      const note = signedWireCommit(id, genesis.hash, [{ method: "post", path: "/notes/a.text", value: "a" }]);
      await rejects(t.call(null, "push", { contract_id: id, commits: [genesis, note] }), "UNAUTHORIZED");
      const first = (await t.call(seller, "push", { contract_id: id, commits: [genesis, note] })) as {
        pushed: number;
        head: string;
      };
      assert.deepEqual(first, { pushed: 2, head: note.hash });
      const again = (await t.call(seller, "push", { contract_id: id, commits: [genesis, note] })) as { pushed: number };
      assert.equal(again.pushed, 0);
      const fork = signedWireCommit(id, genesis.hash, [{ method: "post", path: "/notes/b.text", value: "b" }]);
      await rejects(t.call(seller, "push", { contract_id: id, commits: [fork] }), "CONFLICT");
      const tampered = {
        ...signedWireCommit(id, note.hash, [{ method: "post", path: "/notes/c.text", value: "c" }]),
        hash: "1".repeat(64),
      };
      await rejects(t.call(seller, "push", { contract_id: id, commits: [tampered] }), "VALIDATION_FAILED");
      const pulled = (await t.call(null, "pull", { contract_id: id })) as {
        commits: { hash: string; timestamp: number }[];
      };
      assert.deepEqual(
        pulled.commits.map((c) => c.hash),
        [genesis.hash, note.hash],
      );
    });
  });
}
