/**
 * A push is refused as a whole, and the refusal names the commit it is about (docs/api.md):
 * `details.commit_index` (its index in the contract's log, not in the request) and
 * `details.commit_hash`, for a genesis, the model and path checks, a signature and an asset
 * check, over every transport of a real hub on loopback. A refusal that is about no one
 * commit (a stale head, a request whose commits do not chain, no credentials) names none.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import type { Operation, WireCommit } from "../src/contract/Commit.js";
import { ContractError } from "../src/contract/ContractError.js";
import { signCommit } from "../src/contract/commitHash.js";
import { buildCommit, genesisData } from "../src/contract/engine.js";
import { type LiveHub, type Party, startLiveHub, type Transport } from "./e2e-transports.js";
import { postsAfter } from "./support/testApps.js";

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

/** The refusal of a push of `commits` to `id` as `who` over `t`. */
async function refusal(t: Transport, who: Party | null, id: string, commits: WireCommit[]): Promise<ContractError> {
  try {
    await t.call(who, "push", { contract_id: id, commits });
  } catch (err) {
    assert.ok(err instanceof ContractError, String(err));
    return err;
  }
  assert.fail(`${t.name}: the push of ${commits.length} commit(s) to ${id} was accepted`);
}

const named = (e: ContractError) => [e.code, e.details?.reason, e.details?.commit_index, e.details?.commit_hash];

function genesis(id: string, owner: Party): WireCommit {
  const state = { "/users/alice.id": alice.key };
  return buildCommit(id, null, genesisData({ model: null, rules: [], owner: `ed25519:${owner.key}`, state }));
}

const after1 = (id: string, parent: string, data: Operation[]) => buildCommit(id, parent, data);

describe("a refused push names the refused commit", () => {
  it("by its index in the log and its hash, whichever commit of the request it is", async () => {
    for (const t of transports) {
      const id = `named-${t.name.toLowerCase()}`;
      // A genesis owned by someone else: the first commit of the log.
      const foreign = genesis(id, bob);
      assert.deepEqual(named(await refusal(t, alice, id, [foreign])), ["FORBIDDEN", "owner_mismatch", 0, foreign.hash]);
      // A genesis the engine refuses (its rule does not hold), then two commits after it.
      const model = "model M {\n  initial a\n  a -> b []\n  b -> b []\n}";
      const owner = `ed25519:${alice.key}`;
      const broken = buildCommit(id, null, genesisData({ model, rules: ["always(a)"], owner }));
      const bad = await refusal(t, alice, id, [broken, ...postsAfter(id, broken.hash, 2)]);
      assert.deepEqual(
        [bad.code, bad.details?.commit_index, bad.details?.commit_hash],
        ["VALIDATION_FAILED", 0, broken.hash],
      );
      const g = genesis(id, alice);
      const chain = postsAfter(id, g.hash, 2);
      await t.call(alice, "push", { contract_id: id, commits: [g, ...chain] });

      // A post the path types refuse, checked before the hub reads the log: named by its hash.
      const good = after1(id, chain[1]!.hash, [{ method: "post", path: "/notes/a.text", value: "a" }]);
      const typed = after1(id, good.hash, [{ method: "post", path: "/x.id", value: "no" }]);
      const path = await refusal(t, alice, id, [chain[1]!, good, typed]);
      assert.deepEqual(named(path), ["VALIDATION_FAILED", "value_type", undefined, typed.hash]);

      // A stored commit first (skipped), a good one, then a signature over another hash by
      // the key /users/alice.id holds: index 4 of the log, the third of the request.
      const signed = buildWireCommit(id, good.hash, [{ method: "post", path: "/notes/s.text", value: "s" }]);
      signed.head.signatures["/users/alice.id"] = signCommit(good.hash, alice.identity.seed);
      const sig = await refusal(t, alice, id, [chain[1]!, good, signed]);
      assert.deepEqual(
        [sig.code, sig.details?.commit_index, sig.details?.commit_hash],
        ["VALIDATION_FAILED", 4, signed.hash],
      );

      // An asset check: the SEND after the CREATE goes to a contract that does not exist.
      const create = after1(id, chain[1]!.hash, [
        { method: "create", value: { asset_id: "tok", quantity: 10, divisibility: 1 } },
      ]);
      const send = after1(id, create.hash, [
        { method: "send", value: { asset_id: "tok", to_contract: "nowhere", amount: 1 } },
      ]);
      const asset = await refusal(t, alice, id, [create, send]);
      assert.deepEqual(named(asset), ["VALIDATION_FAILED", "recipient_not_found", 4, send.hash]);
      assert.equal(asset.details?.rpc_code, -32025);

      // Nothing of any of them was stored.
      const state = (await t.call(alice, "getContractState", { contract_id: id })) as { head: string };
      assert.equal(state.head, chain[1]!.hash);
    }
  });

  it("names none when the refusal is about no one commit", async () => {
    for (const t of transports) {
      const id = `unnamed-${t.name.toLowerCase()}`;
      const g = genesis(id, alice);
      const chain = postsAfter(id, g.hash, 2);
      await t.call(alice, "push", { contract_id: id, commits: [g, chain[0]!] });
      const checks: Array<[string, ContractError]> = [
        // A stale head: the first new commit does not extend it.
        ["stale", await refusal(t, alice, id, postsAfter(id, g.hash, 1, "fork"))],
        // The commits of the request do not chain.
        ["unchained", await refusal(t, alice, id, [chain[1]!, ...postsAfter(id, g.hash, 1, "loose")])],
      ];
      checks.push(["anonymous", await refusal(t, null, id, [chain[1]!])]);
      for (const [what, e] of checks) {
        assert.ok(e.code === "CONFLICT" || e.code === "UNAUTHORIZED", `${t.name} ${what}: ${e.code}`);
        assert.deepEqual([what, e.details?.commit_index, e.details?.commit_hash], [what, undefined, undefined]);
      }
    }
  });
});
