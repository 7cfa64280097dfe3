/**
 * The incoming-SENDs list on SQLite: the shared hub cases, then the same list through REST
 * (HubClient), JSON-RPC over HTTP and JSON-RPC over WebSocket of a real hub on loopback.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { IncomingSendsResult } from "../src/api/responses.js";
import { isContractError } from "../src/contract/ContractError.js";
import { incomingCases } from "./asset-incoming.js";
import { type LiveHub, startLiveHub } from "./e2e-transports.js";
import { cleanup, openHub } from "./hub-fixtures.js";

after(cleanup);

describe("incoming SENDs on SQLite", () => {
  incomingCases(
    () => openHub(),
    (hub) => hub.close(),
  );
});

describe("incoming SENDs over every transport", { timeout: 60_000 }, () => {
  let live: LiveHub | undefined;
  after(() => live?.close());

  it("lists, filters and pages the same through REST, JSON-RPC and WebSocket", async () => {
    live = await startLiveHub();
    const alice = await live.party("alice");
    const bob = await live.party("bob");
    const asAlice = live.rest.withKey(alice.access.seed);
    const asBob = live.rest.withKey(bob.access.seed);
    await asAlice.createContract({ contract_id: "src", model: null, rules: [] });
    await asBob.createContract({ contract_id: "dst", model: null, rules: [] });
    await asBob.createContract({ contract_id: "vault", model: null, rules: [], readers: [] });
    await asAlice.submitCommit("src", {
      method: "create",
      value: { asset_id: "gold", quantity: 100, divisibility: 1 },
    });
    const sent: string[] = [];
    for (const amount of [1, 2, 3])
      sent.push(
        (await asAlice.submitCommit("src", { method: "send", value: { asset_id: "gold", to_contract: "dst", amount } }))
          .commit_hash,
      );
    await asAlice.submitCommit("src", { method: "send", value: { asset_id: "gold", to_contract: "vault", amount: 4 } });
    await asBob.submitCommit("dst", { method: "recv", value: { send_commit_id: sent[0] } });

    for (const t of await live.transports()) {
      const all = (await t.call(null, "listIncomingSends", { contract_id: "dst" })) as IncomingSendsResult;
      assert.deepEqual(
        [all.total, all.sends.map((s) => [s.send_commit_id, s.amount, s.received])],
        [
          3,
          [
            [sent[0], 1, true],
            [sent[1], 2, false],
            [sent[2], 3, false],
          ],
        ],
        t.name,
      );
      const pending = (await t.call(null, "listIncomingSends", {
        contract_id: "dst",
        pending: true,
        limit: 1,
        offset: 1,
      })) as IncomingSendsResult;
      assert.deepEqual([pending.total, pending.sends.map((s) => s.send_commit_id)], [2, [sent[2]]], t.name);
      const hidden = await t.call(alice, "listIncomingSends", { contract_id: "vault" }).then(
        () => "ok",
        (err: unknown) => (isContractError(err) ? [err.code, err.details?.reason] : err),
      );
      assert.deepEqual(hidden, ["NOT_FOUND", "contract_not_found"], t.name);
      const own = (await t.call(bob, "listIncomingSends", { contract_id: "vault" })) as IncomingSendsResult;
      assert.deepEqual(
        own.sends.map((s) => s.amount),
        [4],
        t.name,
      );
    }
  });

  it("answers a bad pending value over REST with 400 naming the query field", async () => {
    live ??= await startLiveHub();
    const res = await fetch(`${live.servers.restUrl}/contracts/dst/incoming?pending=yes`);
    assert.equal(res.status, 400);
    const body = (await res.json()) as { code: string; details: { field: string } };
    assert.deepEqual([body.code, body.details.field], ["INVALID_REQUEST", "querystring/pending"]);
  });
});
