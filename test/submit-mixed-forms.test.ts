/**
 * `POST /contracts/:id/commits` (and JSON-RPC `submitCommit`) takes either the field form or a
 * client-built `{commit}` (docs/api.md), never both: beside `commit`, a field of the other form
 * (`signatures`, `action_labels`, `method`, …) was silently dropped, so a signature sent that
 * way was not stored while the commit was. Such a body is 400 INVALID_REQUEST naming the
 * field, and nothing is appended; `contract_id` may accompany either form. Real hub, loopback.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import { ContractError } from "../src/contract/ContractError.js";
import { signCommit } from "../src/contract/commitHash.js";
import { type LiveHub, type Party, startLiveHub, type Transport } from "./e2e-transports.js";

let live: LiveHub;
let alice: Party;
let transports: Transport[];

before(async () => {
  live = await startLiveHub();
  alice = await live.party("alice");
  transports = await live.transports();
});
after(async () => live?.close());

it("refuses a {commit} with fields of the field form beside it, on every transport", async () => {
  for (const t of transports) {
    const { contract_id: id } = (await t.call(alice, "createContract", { model: null, rules: [] })) as {
      contract_id: string;
    };
    const { head } = (await t.call(alice, "getContractState", { contract_id: id })) as { head: string };
    const commit = buildWireCommit(id, head, [{ method: "post", path: "/a.text", value: "x" }], []);
    const extras: Record<string, unknown> = {
      signatures: { [`ed25519:${alice.key}`]: signCommit(commit.hash, alice.identity.seed) },
      action_labels: ["GO"],
      method: "post",
      parent: head,
    };
    for (const [field, value] of Object.entries(extras)) {
      const err = await t.call(alice, "submitCommit", { contract_id: id, commit, [field]: value }).then(
        () => assert.fail(`${t.name}: {commit} with ${field} was accepted`),
        (e: unknown) => e,
      );
      assert.ok(err instanceof ContractError, String(err));
      assert.equal(err.code, "INVALID_REQUEST", `${t.name} ${field}`);
      assert.equal(err.details?.reason, "commit_with_fields", `${t.name} ${field}`);
      assert.equal(err.details?.field, field, `${t.name} ${field}`);
    }
    const log = (await t.call(alice, "getLog", { contract_id: id })) as { total: number };
    assert.equal(log.total, 1, t.name);
    const stored = (await t.call(alice, "submitCommit", { contract_id: id, commit })) as { index: number };
    assert.equal(stored.index, 1, t.name);
  }
});
