/**
 * The field body of `POST /contracts/:id/commits` (and JSON-RPC `submitCommit`) whose first
 * operation is an action (`action`, or `method: "action"`) builds exactly that action
 * (docs/api.md): a `path` beside it, or a `value` that disagrees with its `action`, was
 * silently dropped (a post the client meant to make with the action was lost). Such a body
 * is refused as the same operation in a push is (400 `path_not_allowed`, `action_conflict`),
 * and nothing is appended. Over a real hub on loopback.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { ContractError } from "../src/contract/ContractError.js";
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

const REFUSED: [Record<string, unknown>, string][] = [
  [{ action: "GO", path: "/terms/x.text", value: "y" }, "path_not_allowed"],
  [{ action: "GO", value: "OTHER" }, "action_conflict"],
  [{ method: "action", action: "GO", value: "OTHER" }, "action_conflict"],
  [{ method: "action", value: "GO", path: "/a.text" }, "path_not_allowed"],
  [{ method: "action", path: "/a.text" }, "path_not_allowed"],
];

it("refuses a path or a disagreeing value beside an action, on every transport", async () => {
  for (const t of transports) {
    const { contract_id: id } = (await t.call(alice, "createContract", { model: null, rules: [] })) as {
      contract_id: string;
    };
    for (const [fields, reason] of REFUSED) {
      const err = await t.call(alice, "submitCommit", { contract_id: id, ...fields }).then(
        () => assert.fail(`${t.name}: ${JSON.stringify(fields)} was accepted`),
        (e: unknown) => e,
      );
      assert.ok(err instanceof ContractError, String(err));
      assert.equal(err.code, "INVALID_REQUEST", `${t.name} ${JSON.stringify(fields)}`);
      assert.equal(err.details?.reason, reason, `${t.name} ${JSON.stringify(fields)}`);
    }
    assert.equal(((await t.call(alice, "getLog", { contract_id: id })) as { total: number }).total, 1, t.name);
    for (const fields of [
      { action: "GO" },
      { method: "action", value: "GO" },
      { method: "action", action: "GO", value: "GO" },
    ]) {
      const done = (await t.call(alice, "submitCommit", { contract_id: id, ...fields })) as { commit_hash: string };
      const entry = (await t.call(alice, "getCommit", { contract_id: id, hash: done.commit_hash })) as {
        method: string;
        value: string;
        path?: string;
      };
      assert.deepEqual([entry.method, entry.value, entry.path], ["action", "GO", undefined], t.name);
    }
  }
});
