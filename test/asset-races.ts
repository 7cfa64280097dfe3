/**
 * The asset races (PROTOCOL.md §6), registered for any set of hub instances sharing one
 * store: 64 concurrent RECVs of one SEND credit it once (the others answer -32032), and two
 * concurrent SENDs that together overdraw leave one standing (the other answers -32024).
 * Requests go round-robin over the instances, so on two instances they race through the
 * database, not just the in-process lock.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { checkAssetInvariants } from "../src/hub/assets/checkAssetInvariants.js";
import type { Hub } from "../src/hub/Hub.js";
import { balances, create, op, recv, rpcCodeOf, send } from "./asset-fixtures.js";
import { Actor } from "./hub-fixtures.js";

let serial = 0;

/** Registers the race tests; `open` gives instances on one fresh store, `close` releases them. */
export function assetRaces(open: () => Promise<Hub[]>, close: (hubs: Hub[]) => Promise<void>): void {
  it("credits a SEND once when 64 RECVs race for it (the others answer -32032)", async () => {
    const hubs = await open();
    try {
      const alice = new Actor("alice");
      const [a, b] = [`ra${++serial}`, `rb${serial}`];
      for (const id of [a, b]) await hubs[0]!.createContract(alice.caller, { contract_id: id, model: null, rules: [] });
      await create(hubs[0]!, alice, a, "t", 100);
      const s = await send(hubs[0]!, alice, a, "t", b, 30);
      const outcomes = await Promise.all(
        Array.from({ length: 64 }, (_, i) => rpcCodeOf(recv(hubs[i % hubs.length]!, alice, b, s))),
      );
      assert.equal(outcomes.filter((o) => o === "ok").length, 1);
      assert.deepEqual(new Set(outcomes.filter((o) => o !== "ok")), new Set([-32032]));
      assert.deepEqual(await balances(hubs[0]!.store, b), { [`${a}/t`]: 30 });
      assert.equal((await hubs[0]!.store.getContract(b))!.length, 2);
      assert.deepEqual((await checkAssetInvariants(hubs[0]!.store, [a, b])).issues, []);
    } finally {
      await close(hubs);
    }
  });

  it("lets one of two SENDs that together overdraw succeed (the other answers -32024)", async () => {
    const hubs = await open();
    try {
      const alice = new Actor("alice");
      const [a, b] = [`sa${++serial}`, `sb${serial}`];
      for (const id of [a, b]) await hubs[0]!.createContract(alice.caller, { contract_id: id, model: null, rules: [] });
      await create(hubs[0]!, alice, a, "t", 100);
      for (let round = 0; round < 5; round++) {
        // Each round refills nothing: round 0 races 60 + 60 of 100, later rounds race what is left.
        const left = (await balances(hubs[0]!.store, a))[`${a}/t`]!;
        const amount = Math.floor(left / 2) + 1;
        const outcomes = await Promise.all(
          [0, 1].map((i) =>
            rpcCodeOf(op(hubs[i % hubs.length]!, alice, a, "send", { asset_id: "t", to_contract: b, amount })),
          ),
        );
        assert.deepEqual(outcomes.sort(), [-32024, "ok"].sort(), `round ${round}`);
        assert.equal((await balances(hubs[0]!.store, a))[`${a}/t`], left - amount);
      }
      assert.deepEqual((await checkAssetInvariants(hubs[0]!.store, [a, b])).issues, []);
    } finally {
      await close(hubs);
    }
  });
}
