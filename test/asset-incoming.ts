/**
 * The incoming-SENDs list (docs/assets.md) through the Hub, shared by the SQLite and
 * PostgreSQL suites: oldest first with receipts, the pending filter, paging, and the
 * recipient's read access (a private recipient answers strangers as a missing contract).
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { isContractError } from "../src/contract/ContractError.js";
import type { Hub } from "../src/hub/Hub.js";
import { ANONYMOUS } from "../src/hub/HubApi.js";
import { contracts, create, recv, send } from "./asset-fixtures.js";
import { Actor } from "./hub-fixtures.js";

/** The code and reason an operation failed with. */
async function failure(p: Promise<unknown>): Promise<[string, unknown]> {
  try {
    await p;
  } catch (err) {
    if (isContractError(err)) return [err.code, err.details?.reason];
    throw err;
  }
  return ["ok", undefined];
}

/** Registers the cases; `open` gives a fresh hub, `close` releases it. */
export function incomingCases(open: () => Promise<Hub>, close: (hub: Hub) => Promise<void>): void {
  it("lists the SENDs addressed to a contract oldest first, with receipts, pending filter and paging", async () => {
    const hub = await open();
    try {
      const alice = new Actor("alice");
      const bob = new Actor("bob");
      await contracts(hub, alice, "src");
      await contracts(hub, bob, "dst");
      await create(hub, alice, "src", "gold", 100);
      const s1 = await send(hub, alice, "src", "gold", "dst", 10);
      const s2 = await send(hub, alice, "src", "gold", "dst", 20);
      const s3 = await send(hub, alice, "src", "gold", "dst", 30);
      const received = (await recv(hub, bob, "dst", s2)).commit_hash;

      const all = await hub.listIncomingSends(ANONYMOUS, "dst", {});
      assert.equal(all.contract_id, "dst");
      assert.equal(all.total, 3);
      assert.deepEqual(
        all.sends.map((s) => [s.send_commit_id, s.from_contract, s.issuer, s.asset_id, s.amount]),
        [
          [s1, "src", "src", "gold", 10],
          [s2, "src", "src", "gold", 20],
          [s3, "src", "src", "gold", 30],
        ],
      );
      assert.deepEqual(
        all.sends.map((s) => [s.received, s.recv_commit_id]),
        [
          [false, null],
          [true, received],
          [false, null],
        ],
      );
      // Each entry's leaf and time are the SEND commit's own.
      for (const s of all.sends) {
        const leaf = (await hub.store.findLeaf(s.send_commit_id))!;
        assert.equal(s.leaf_index, leaf.leafIndex);
        assert.equal(s.timestamp, (await hub.store.getCommitAt("src", leaf.index))!.timestamp);
      }

      const pending = await hub.listIncomingSends(ANONYMOUS, "dst", { pending: true });
      assert.deepEqual([pending.total, pending.sends.map((s) => s.send_commit_id)], [2, [s1, s3]]);
      // A query string's spelling means the same.
      assert.deepEqual(await hub.listIncomingSends(ANONYMOUS, "dst", { pending: "true" }), pending);
      assert.deepEqual(await hub.listIncomingSends(ANONYMOUS, "dst", { pending: "false" }), all);

      const page = await hub.listIncomingSends(ANONYMOUS, "dst", { limit: 1, offset: 1 });
      assert.deepEqual([page.total, page.sends.map((s) => s.send_commit_id)], [3, [s2]]);
      const pendingPage = await hub.listIncomingSends(ANONYMOUS, "dst", { pending: true, limit: 1, offset: 1 });
      assert.deepEqual([pendingPage.total, pendingPage.sends.map((s) => s.send_commit_id)], [2, [s3]]);
      assert.deepEqual((await hub.listIncomingSends(ANONYMOUS, "dst", { offset: 3 })).sends, []);
      // What a contract sent is not incoming to it.
      assert.deepEqual(await hub.listIncomingSends(ANONYMOUS, "src", {}), { contract_id: "src", sends: [], total: 0 });
    } finally {
      await close(hub);
    }
  });

  it("hides a private recipient's incoming SENDs from non-readers exactly as its other reads", async () => {
    const hub = await open();
    try {
      const alice = new Actor("alice");
      const bob = new Actor("bob");
      const carol = new Actor("carol");
      await contracts(hub, alice, "src");
      await hub.createContract(bob.caller, { contract_id: "vault", model: null, rules: [], readers: [carol.identity] });
      await create(hub, alice, "src", "gold", 100);
      const s = await send(hub, alice, "src", "gold", "vault", 7);
      for (const who of [ANONYMOUS, alice.caller]) {
        const listed = await failure(hub.listIncomingSends(who, "vault", {}));
        assert.deepEqual(listed, ["NOT_FOUND", "contract_not_found"]);
        // The same answer as a read of the contract's assets and of a contract that does not exist.
        assert.deepEqual(await failure(hub.getAssets(who, "vault")), listed);
        assert.deepEqual(await failure(hub.listIncomingSends(who, "no-such-contract", {})), listed);
      }
      for (const who of [bob.caller, carol.caller]) {
        const { sends } = await hub.listIncomingSends(who, "vault", { pending: true });
        assert.deepEqual(
          sends.map((x) => [x.send_commit_id, x.amount]),
          [[s, 7]],
        );
      }
    } finally {
      await close(hub);
    }
  });

  it("refuses a bad pending flag or page with INVALID_REQUEST naming the field", async () => {
    const hub = await open();
    try {
      const alice = new Actor("alice");
      await contracts(hub, alice, "dst");
      for (const [q, field] of [
        [{ pending: "yes" }, "pending"],
        [{ pending: 1 }, "pending"],
        [{ limit: -1 }, "limit"],
        [{ offset: "x" }, "offset"],
      ] as const) {
        const details = await assertContractErrorAsync(
          () => hub.listIncomingSends(ANONYMOUS, "dst", q),
          "INVALID_REQUEST",
          "bad_query",
        );
        assert.equal(details.field, field);
      }
    } finally {
      await close(hub);
    }
  });
}
