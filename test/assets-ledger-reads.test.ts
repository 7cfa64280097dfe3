/**
 * The asset ledger reads the rows an operation names, not a contract's whole books
 * (docs/assets.md, "Bookkeeping"; PROTOCOL.md §18). SQLite reads run on the event loop, so
 * a ledger that loaded every asset and balance of the contracts it touched let a contract
 * that issued hundreds of thousands of assets stall the hub on each of its SENDs (and on any
 * SEND of an asset it issued). The store is wrapped to count the rows its reads return.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Operation } from "../src/contract/Commit.js";
import { buildCommit } from "../src/contract/engine.js";
import { AssetLedger } from "../src/hub/assets/AssetLedger.js";
import type { Hub } from "../src/hub/Hub.js";
import { contracts, create, recv, rpcCodeOf, send } from "./asset-fixtures.js";
import { Actor, cleanup, openHub } from "./hub-fixtures.js";
import { counted } from "./support/countedStore.js";

/** Assets the busy contract issued besides the ones the operations name. */
const MANY = 320;

describe("asset ledger reads", () => {
  let hub: Hub;
  const alice = new Actor("alice");
  let sent: string;

  before(async () => {
    hub = await openHub();
    await contracts(hub, alice, "busy", "other", "dst");
    // The busy contract issues MANY assets (64 CREATEs a commit) and receives one of other's.
    let head = (await hub.store.getContract("busy"))!.head;
    for (let i = 0; i < MANY; i += 64) {
      const ops: Operation[] = Array.from({ length: 64 }, (_, j) => ({
        method: "create",
        value: { asset_id: `a${i + j}`, quantity: 10, divisibility: 1 },
      }));
      const c = buildCommit("busy", head, ops);
      await hub.push(alice.caller, "busy", { commits: [c] });
      head = c.hash;
    }
    await create(hub, alice, "busy", "gold", 1000);
    await create(hub, alice, "other", "silver", 100);
    await recv(hub, alice, "busy", await send(hub, alice, "other", "silver", "busy", 40));
    await recv(hub, alice, "dst", await send(hub, alice, "busy", "gold", "dst", 5));
    sent = await send(hub, alice, "other", "silver", "busy", 10);
  });
  after(async () => {
    await hub.close();
    cleanup();
  });

  /** Checks `op` as the next commit of `id` on a counted store; the rows read, or the refusal's code. */
  async function check(id: string, op: Operation): Promise<{ rows: number; outcome: number | string }> {
    const { store, rows } = counted(hub.store);
    const ledger = new AssetLedger({ store, readSource: async () => null });
    const outcome = await rpcCodeOf(ledger.check(id, "f".repeat(64), [{ opIndex: 0, op }]));
    return { rows: rows(), outcome };
  }

  const sendOp = (asset_id: string, amount: number): Operation => ({
    method: "send",
    value: { asset_id, to_contract: "dst", amount },
  });

  for (const [name, id, op] of [
    ["a SEND of the sender's own asset by its plain id", "busy", sendOp("gold", 5)],
    ["a SEND named <issuer>/<asset_id>", "busy", sendOp("busy/a7", 5)],
    ["a SEND of a held foreign asset by its plain id", "busy", sendOp("silver", 5)],
    ["a SEND of an asset the busy contract issued, named <issuer>/<asset_id>", "dst", sendOp("busy/gold", 5)],
    ["a SEND of an asset the busy contract issued, by its plain id", "dst", sendOp("gold", 5)],
    ["a CREATE", "busy", { method: "create", value: { asset_id: "new", quantity: 1, divisibility: 1 } }],
  ] as const) {
    it(`${name} reads a few rows, however many assets the contract issued`, async () => {
      const { rows, outcome } = await check(id, op as Operation);
      assert.equal(outcome, "ok");
      assert.ok(rows <= 6, `read ${rows} rows`);
    });
  }

  it("a RECV into the busy contract reads a few rows", async () => {
    const { rows, outcome } = await check("busy", { method: "recv", value: { send_commit_id: sent } });
    assert.equal(outcome, "ok");
    assert.ok(rows <= 6, `read ${rows} rows`);
  });

  it("still refuses an overdraw and an existing asset with their codes", async () => {
    assert.equal((await check("busy", sendOp("gold", 996))).outcome, -32024);
    assert.equal((await check("busy", sendOp("silver", 41))).outcome, -32024);
    assert.equal(
      (await check("busy", { method: "create", value: { asset_id: "a3", quantity: 1, divisibility: 1 } })).outcome,
      -32040,
    );
    assert.equal((await check("busy", sendOp("nope", 1))).outcome, -32022);
  });
});
