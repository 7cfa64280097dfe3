/**
 * The asset races (PROTOCOL.md §6), registered for any set of hub instances sharing one
 * store: 64 concurrent RECVs of one SEND credit it once (the others answer -32032), and two
 * concurrent SENDs that together overdraw leave one standing (the other answers -32024).
 * Requests go round-robin over the instances, so on two instances they race through the
 * database, not just the in-process lock.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import type { Operation } from "../src/contract/Commit.js";
import { buildCommit } from "../src/contract/engine.js";
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

  it("lets one of a pushed SEND and a single-commit SEND that together overdraw stand, and one of two RECVs so sent", async () => {
    const hubs = await open();
    try {
      const alice = new Actor("alice");
      const [a, b] = [`pa${++serial}`, `pb${serial}`];
      for (const id of [a, b]) await hubs[0]!.createContract(alice.caller, { contract_id: id, model: null, rules: [] });
      await create(hubs[0]!, alice, a, "t", 100);
      const headOf = async (id: string) => (await hubs[0]!.store.getContract(id))!.head;
      /**
       * The outcome of pushing `op` as one commit on the current head of `id` (CONFLICT when the
       * head moved first). It carries a note besides: the same operation alone on the same parent
       * would be the very commit the single-commit request builds, stored once whoever sends it.
       */
      const pushed = async (hub: Hub, id: string, operation: Operation) => {
        const note: Operation = { method: "post", path: "/note.text", value: "pushed" };
        const commit = buildCommit(id, await headOf(id), [operation, note]);
        return rpcCodeOf(hub.push(alice.caller, id, { commits: [commit] }));
      };
      for (let round = 0; round < 4; round++) {
        const left = (await balances(hubs[0]!.store, a))[`${a}/t`]!;
        const amount = Math.floor(left / 2) + 1;
        const value = { asset_id: "t", to_contract: b, amount };
        const outcomes = await Promise.all([
          pushed(hubs[0]!, a, { method: "send", value }),
          rpcCodeOf(op(hubs[1 % hubs.length]!, alice, a, "send", value)),
        ]);
        // The single commit names no parent, so when the push wins it is judged again on the new
        // head (-32024); a push names its parent, so when it loses it is 409.
        assert.equal(outcomes.filter((o) => o === "ok").length, 1, `round ${round}: ${outcomes}`);
        assert.ok([-32024, "CONFLICT"].includes(outcomes.find((o) => o !== "ok")!), `round ${round}: ${outcomes}`);
        assert.equal((await balances(hubs[0]!.store, a))[`${a}/t`], left - amount);
      }
      const s = await send(hubs[0]!, alice, a, "t", b, 1);
      const outcomes = await Promise.all([
        pushed(hubs[0]!, b, { method: "recv", value: { send_commit_id: s } }),
        rpcCodeOf(recv(hubs[1 % hubs.length]!, alice, b, s)),
      ]);
      assert.equal(outcomes.filter((o) => o === "ok").length, 1, String(outcomes));
      assert.ok([-32032, "CONFLICT"].includes(outcomes.find((o) => o !== "ok")!), String(outcomes));
      assert.deepEqual((await checkAssetInvariants(hubs[0]!.store, [a, b])).issues, []);
    } finally {
      await close(hubs);
    }
  });
}
