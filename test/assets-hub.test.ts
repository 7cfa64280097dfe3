/**
 * Assets through the Hub (PROTOCOL.md §6): bookkeeping across contracts, effects seen in
 * order within a commit and a push, plain and qualified asset names, the model's say over
 * asset operations, and balances after a restart.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { buildCommit } from "../src/contract/engine.js";
import { AssetLedger } from "../src/hub/assets/AssetLedger.js";
import { ANONYMOUS } from "../src/hub/HubApi.js";
import { balances, contracts, create, recv, rpcCodeOf, send } from "./asset-fixtures.js";
import { Actor, cleanup, genesisCommit, openHub, signedCommit, tempDir } from "./hub-fixtures.js";

after(cleanup);

describe("assets through the hub", () => {
  it("moves an asset along a SEND/RECV chain across three contracts", async () => {
    const hub = await openHub();
    const alice = new Actor("alice");
    await contracts(hub, alice, "a", "b", "c");
    await create(hub, alice, "a", "gold", 1000, 10);
    const s1 = await send(hub, alice, "a", "gold", "b", 300);
    await recv(hub, alice, "b", s1);
    const s2 = await send(hub, alice, "b", "gold", "c", 120);
    assert.deepEqual(await balances(hub.store, "b"), { "a/gold": 180 });
    await recv(hub, alice, "c", s2);
    const s3 = await send(hub, alice, "c", "a/gold", "a", 20);
    await recv(hub, alice, "a", s3);
    assert.deepEqual(await balances(hub.store, "a"), { "a/gold": 720 });
    assert.deepEqual(await balances(hub.store, "b"), { "a/gold": 180 });
    assert.deepEqual(await balances(hub.store, "c"), { "a/gold": 100 });
    assert.deepEqual(await hub.getAssets(ANONYMOUS, "c"), {
      contract_id: "c",
      assets: [],
      balances: [{ asset_id: "gold", issuer: "a", amount: 100 }],
      assets_total: 0,
      balances_total: 1,
    });
    assert.deepEqual((await hub.getAssets(ANONYMOUS, "a")).assets, [
      { asset_id: "gold", issuer: "a", quantity: 1000, divisibility: 10 },
    ]);
    assert.equal((await hub.store.getSend(s2))!.receivedBy, (await hub.store.getCommitAt("c", 1))!.hash);
    await hub.close();
  });

  it("lets the operations of one commit and the commits of one push see each other's effects", async () => {
    const hub = await openHub();
    const alice = new Actor("alice");
    await contracts(hub, alice, "sink");
    const g = genesisCommit("src", alice);
    const c1 = buildCommit("src", g.hash, [
      { method: "create", value: { asset_id: "t", quantity: 50, divisibility: 1 } },
      { method: "send", value: { asset_id: "t", to_contract: "src", amount: 20 } },
    ]);
    const c2 = buildCommit("src", c1.hash, [{ method: "recv", value: { send_commit_id: c1.hash } }]);
    const c3 = buildCommit("src", c2.hash, [
      { method: "send", value: { asset_id: "t", to_contract: "sink", amount: 50 } },
    ]);
    // The genesis, the CREATE and the SENDs land in one append, the contract row included.
    assert.equal((await hub.push(alice.caller, "src", { commits: [g, c1, c2, c3] })).pushed, 4);
    assert.deepEqual(await balances(hub.store, "src"), { "src/t": 0 });
    const over = buildCommit("src", c3.hash, [
      { method: "send", value: { asset_id: "t", to_contract: "sink", amount: 1 } },
    ]);
    assert.equal(await rpcCodeOf(hub.push(alice.caller, "src", { commits: [over] })), -32024);
    // A later commit of a push failing rejects the whole push, its effects included.
    const ok = buildCommit("src", c3.hash, [{ method: "post", path: "/n.text", value: "x" }]);
    const dup = buildCommit("src", ok.hash, [
      { method: "create", value: { asset_id: "t", quantity: 1, divisibility: 1 } },
    ]);
    assert.equal(await rpcCodeOf(hub.push(alice.caller, "src", { commits: [ok, dup] })), -32040);
    assert.equal((await hub.store.getContract("src"))!.length, 4);
    await hub.close();
  });

  it("refuses two SENDs in one commit and a second RECV of a SEND in the same commit", async () => {
    const hub = await openHub();
    const alice = new Actor("alice");
    await contracts(hub, alice, "a", "b");
    await create(hub, alice, "a", "t", 10);
    const s = await send(hub, alice, "a", "t", "b", 4);
    const head = (await hub.getState(ANONYMOUS, "a")).head as string;
    const two = buildCommit("a", head, [
      { method: "send", value: { asset_id: "t", to_contract: "b", amount: 1 } },
      { method: "send", value: { asset_id: "t", to_contract: "b", amount: 1 } },
    ]);
    assert.equal(await rpcCodeOf(hub.push(alice.caller, "a", { commits: [two] })), -32602);
    const bHead = (await hub.getState(ANONYMOUS, "b")).head as string;
    const twice = buildCommit("b", bHead, [
      { method: "recv", value: { send_commit_id: s } },
      { method: "recv", value: { send_commit_id: s } },
    ]);
    assert.equal(await rpcCodeOf(hub.push(alice.caller, "b", { commits: [twice] })), -32032);
    assert.deepEqual(await balances(hub.store, "b"), {});
    await hub.close();
  });

  it("resolves a plain asset id to the sender's own asset, the one it holds, or refuses an ambiguous one", async () => {
    const hub = await openHub();
    const alice = new Actor("alice");
    await contracts(hub, alice, "x1", "x2", "h", "own");
    await create(hub, alice, "x1", "coin", 100);
    await create(hub, alice, "x2", "coin", 100);
    await recv(hub, alice, "h", await send(hub, alice, "x1", "coin", "h", 10));
    // One foreign "coin" held: the plain id names it.
    await send(hub, alice, "h", "coin", "x1", 1);
    await recv(hub, alice, "h", await send(hub, alice, "x2", "coin", "h", 10));
    assert.equal(await rpcCodeOf(send(hub, alice, "h", "coin", "x1", 1)), -32022);
    await send(hub, alice, "h", "x2/coin", "x2", 2);
    // Its own "coin" wins over the foreign ones.
    await create(hub, alice, "h", "coin", 5);
    await send(hub, alice, "h", "coin", "own", 5);
    assert.deepEqual(await balances(hub.store, "h"), { "h/coin": 0, "x1/coin": 9, "x2/coin": 8 });
    assert.equal(await rpcCodeOf(send(hub, alice, "own", "x1/coin", "h", 1)), -32022);
    await hub.close();
  });

  it("answers -32021 when asked to check a SEND of a contract that does not exist", async () => {
    const hub = await openHub();
    const ledger = new AssetLedger({ store: hub.store, readSource: async () => null });
    const value = { asset_id: "t", to_contract: "nowhere", amount: 1 };
    assert.equal(
      await rpcCodeOf(
        Promise.resolve(ledger.check("ghost", "00".repeat(32), [{ opIndex: 0, op: { method: "send", value } }])),
      ),
      -32021,
    );
    assert.deepEqual(ledger.effects, []);
    await hub.close();
  });

  it("lets the model decide who may move assets (+SEND with the treasurer's signature)", async () => {
    const hub = await openHub();
    const owner = new Actor("owner");
    const treasurer = new Actor("treasurer");
    const model = `model Treasury {
  initial open
  open -> open [+CREATE +signed_by(/users/treasurer.id)]
  open -> open [+SEND +signed_by(/users/treasurer.id)]
  open -> open [+RECV]
}`;
    await contracts(hub, owner, "sink");
    await hub.createContract(owner.caller, {
      contract_id: "vault",
      model,
      rules: [],
      state: { "/users/treasurer.id": treasurer.key },
    });
    const head = () => hub.getState(ANONYMOUS, "vault").then((s) => s.head as string);
    const mint = [{ method: "create" as const, value: { asset_id: "v", quantity: 10, divisibility: 1 } }];
    const unsigned = buildCommit("vault", await head(), mint);
    const refused = await rpcCodeOf(hub.push(owner.caller, "vault", { commits: [unsigned] }));
    assert.equal(refused, -32005);
    await hub.push(owner.caller, "vault", { commits: [signedCommit("vault", await head(), mint, [treasurer])] });
    const out = [{ method: "send" as const, value: { asset_id: "v", to_contract: "sink", amount: 4 } }];
    assert.equal(
      await rpcCodeOf(hub.push(owner.caller, "vault", { commits: [buildCommit("vault", await head(), out)] })),
      -32005,
    );
    const signed = signedCommit("vault", await head(), out, [treasurer]);
    await hub.push(owner.caller, "vault", { commits: [signed] });
    await recv(hub, owner, "sink", signed.hash);
    assert.deepEqual(await balances(hub.store, "sink"), { "vault/v": 4 });
    await hub.close();
  });

  it("keeps balances across a restart of the hub", async () => {
    const dir = tempDir();
    const alice = new Actor("alice");
    let hub = await openHub(dir);
    await contracts(hub, alice, "a", "b");
    await create(hub, alice, "a", "t", 100);
    const s = await send(hub, alice, "a", "t", "b", 40);
    await hub.close();
    hub = await openHub(dir);
    await recv(hub, alice, "b", s);
    assert.equal(await rpcCodeOf(send(hub, alice, "a", "t", "b", 61)), -32024);
    await send(hub, alice, "a", "t", "b", 60);
    assert.deepEqual(await balances(hub.store, "a"), { "a/t": 0 });
    assert.deepEqual(await balances(hub.store, "b"), { "a/t": 40 });
    await hub.close();
  });
});
