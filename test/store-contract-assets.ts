/**
 * The asset part of the shared Store suite (PROTOCOL.md §6): effects are written with
 * their commits, all or nothing, and the store's constraints answer with the engine's
 * codes. Registered by storeContractSuite inside its describe block.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { isContractError } from "../src/contract/ContractError.js";
import type { StoredCommit } from "../src/contract/StoredCommit.js";
import type { AssetEffect, Store } from "../src/store/Store.js";
import { testChain } from "./support/testChain.js";

const created = { contract: { owner: "ab".repeat(32), createdAt: 1_700_000_000, private: false } };

/** Contracts `a` (issuer, holding 100 `tok`) and `b`, and a SEND of 30 from a to b. */
export async function issueAndSend(store: Store): Promise<{ a: StoredCommit[]; b: StoredCommit[]; send: string }> {
  const a = testChain("a", 3);
  const b = testChain("b", 1);
  await store.appendCommits("a", null, a.slice(0, 1), created);
  await store.appendCommits("b", null, b, created);
  await store.appendCommits("a", a[0]!.hash, [a[1]!], {
    assetEffects: [
      { kind: "create", issuer: "a", assetId: "tok", quantity: 100, divisibility: 1, commitHash: a[1]!.hash },
    ],
  });
  await store.appendCommits("a", a[1]!.hash, [a[2]!], {
    assetEffects: [
      { kind: "send", commitHash: a[2]!.hash, from: "a", to: "b", issuer: "a", assetId: "tok", amount: 30 },
    ],
  });
  return { a, b, send: a[2]!.hash };
}

/**
 * Appends one RECV of `send` to `b`, rebasing on the current head after each CONFLICT as a
 * hub does; resolves to "ok" or the failure's `details.reason`.
 */
export async function receiveWithRetry(store: Store, send: string, salt: string): Promise<string> {
  for (;;) {
    const head = (await store.getContract("b"))!;
    const [commit] = testChain("b", 1, head.head, head.length, salt);
    const effect: AssetEffect = { kind: "recv", sendCommitHash: send, recvCommitHash: commit!.hash, contractId: "b" };
    try {
      await store.appendCommits("b", head.head, [commit!], { assetEffects: [effect] });
      return "ok";
    } catch (err) {
      if (isContractError(err, "CONFLICT")) continue;
      if (isContractError(err)) return String(err.details?.reason);
      throw err;
    }
  }
}

/** Registers the asset tests; `fresh` opens an empty store. */
export function assetCases(fresh: () => Promise<Store>): void {
  it("writes asset effects with their commits and refuses a second receipt of a SEND", async () => {
    const store = await fresh();
    const { a, b, send } = await issueAndSend(store);
    const more = testChain("b", 2, b[0]!.hash, 1);
    const recv = { kind: "recv" as const, sendCommitHash: send, contractId: "b" };
    await store.appendCommits("b", b[0]!.hash, [more[0]!], {
      assetEffects: [{ ...recv, recvCommitHash: more[0]!.hash }],
    });
    const details = await assertContractErrorAsync(
      () =>
        store.appendCommits("b", more[0]!.hash, [more[1]!], {
          assetEffects: [{ ...recv, recvCommitHash: more[1]!.hash }],
        }),
      "VALIDATION_FAILED",
      "already_received",
    );
    assert.equal(details.rpc_code, -32032);
    assert.equal(details.commit_hash, more[1]!.hash, "the refusal names the commit that carried the RECV");
    assert.equal(await store.getCommitByHash("b", more[1]!.hash), null);
    assert.equal((await store.getContract("b"))!.head, more[0]!.hash);
    assert.deepEqual(await store.getAssets("a"), {
      assets: [{ issuer: "a", assetId: "tok", quantity: 100, divisibility: 1 }],
      balances: [{ issuer: "a", assetId: "tok", amount: 70 }],
    });
    assert.deepEqual(await store.getAssets("b"), {
      assets: [],
      balances: [{ issuer: "a", assetId: "tok", amount: 30 }],
    });
    assert.deepEqual(await store.getSend(send), {
      commitHash: send,
      from: "a",
      to: "b",
      issuer: "a",
      assetId: "tok",
      amount: 30,
      receivedBy: more[0]!.hash,
    });
    assert.equal(await store.getSend(a[1]!.hash), null);
  });

  it("reads a page of a contract's books in key order, each list from its offset, with both totals", async () => {
    const store = await fresh();
    const { b, send } = await issueAndSend(store);
    // `b` receives a's `tok` and creates five assets (ids out of order), holding them too.
    const [c] = testChain("b", 1, b[0]!.hash, 1);
    const ids = ["e", "b", "d", "a", "c"];
    await store.appendCommits("b", b[0]!.hash, [c!], {
      assetEffects: [
        { kind: "recv", sendCommitHash: send, recvCommitHash: c!.hash, contractId: "b" },
        ...ids.map((assetId) => ({
          kind: "create" as const,
          issuer: "b",
          assetId,
          quantity: 10,
          divisibility: 1,
          commitHash: c!.hash,
        })),
      ],
    });
    const asset = (assetId: string) => ({ issuer: "b", assetId, quantity: 10, divisibility: 1 });
    const own = (assetId: string) => ({ issuer: "b", assetId, amount: 10 });
    const tok = { issuer: "a", assetId: "tok", amount: 30 };
    assert.deepEqual(await store.getAssetsPage("b", { limit: 2, offset: 1 }), {
      assets: [asset("b"), asset("c")],
      balances: [own("a"), own("b")],
      assetsTotal: 5,
      balancesTotal: 6,
    });
    assert.deepEqual(await store.getAssetsPage("b", { limit: 10, offset: 5 }), {
      assets: [],
      balances: [own("e")],
      assetsTotal: 5,
      balancesTotal: 6,
    });
    assert.deepEqual(await store.getAssetsPage("b", { limit: 10, offset: 0 }), {
      assets: ["a", "b", "c", "d", "e"].map(asset),
      balances: [tok, ...["a", "b", "c", "d", "e"].map(own)],
      assetsTotal: 5,
      balancesTotal: 6,
    });
    assert.deepEqual(await store.getAssetsPage("nobody", { limit: 10, offset: 0 }), {
      assets: [],
      balances: [],
      assetsTotal: 0,
      balancesTotal: 0,
    });
  });

  it("reads one asset by its key and a holder's balances of one asset id (the ledger's point reads)", async () => {
    const store = await fresh();
    const { b, send } = await issueAndSend(store);
    const more = testChain("b", 1, b[0]!.hash, 1);
    await store.appendCommits("b", b[0]!.hash, more, {
      assetEffects: [
        { kind: "create", issuer: "b", assetId: "tok", quantity: 5, divisibility: 1, commitHash: more[0]!.hash },
        { kind: "create", issuer: "b", assetId: "other", quantity: 7, divisibility: 1, commitHash: more[0]!.hash },
        { kind: "recv", sendCommitHash: send, recvCommitHash: more[0]!.hash, contractId: "b" },
      ],
    });
    assert.deepEqual(await store.getAsset("a", "tok"), { issuer: "a", assetId: "tok", quantity: 100, divisibility: 1 });
    assert.equal(await store.getAsset("b", "missing"), null);
    assert.equal(await store.getAsset("nobody", "tok"), null);
    assert.deepEqual(await store.getBalancesNamed("b", "tok"), [
      { issuer: "a", assetId: "tok", amount: 30 },
      { issuer: "b", assetId: "tok", amount: 5 },
    ]);
    assert.deepEqual(await store.getBalancesNamed("b", "tok", "a"), [{ issuer: "a", assetId: "tok", amount: 30 }]);
    assert.deepEqual(await store.getBalancesNamed("a", "tok", "a"), [{ issuer: "a", assetId: "tok", amount: 70 }]);
    assert.deepEqual(await store.getBalancesNamed("a", "other"), []);
    assert.deepEqual(await store.getBalancesNamed("b", "tok", "c"), []);
  });

  it("lists a contract's incoming SENDs oldest first, paged, with their receipts and the pending filter", async () => {
    const store = await fresh();
    const { a, b, send } = await issueAndSend(store);
    // A second SEND of 5 to b, then b receives the first.
    const [second] = testChain("a", 1, a[2]!.hash, 3);
    await store.appendCommits("a", a[2]!.hash, [second!], {
      assetEffects: [
        { kind: "send", commitHash: second!.hash, from: "a", to: "b", issuer: "a", assetId: "tok", amount: 5 },
      ],
    });
    const [recv] = testChain("b", 1, b[0]!.hash, 1);
    await store.appendCommits("b", b[0]!.hash, [recv!], {
      assetEffects: [{ kind: "recv", sendCommitHash: send, recvCommitHash: recv!.hash, contractId: "b" }],
    });
    const all = await store.listIncomingSends("b", { pending: false, limit: 10, offset: 0 });
    assert.equal(all.total, 2);
    const leafA2 = (await store.findLeaf(send))!.leafIndex;
    const leafSecond = (await store.findLeaf(second!.hash))!.leafIndex;
    assert.deepEqual(all.sends, [
      {
        commitHash: send,
        from: "a",
        to: "b",
        issuer: "a",
        assetId: "tok",
        amount: 30,
        receivedBy: recv!.hash,
        timestamp: a[2]!.timestamp,
        leafIndex: leafA2,
      },
      {
        commitHash: second!.hash,
        from: "a",
        to: "b",
        issuer: "a",
        assetId: "tok",
        amount: 5,
        receivedBy: null,
        timestamp: second!.timestamp,
        leafIndex: leafSecond,
      },
    ]);
    const pending = await store.listIncomingSends("b", { pending: true, limit: 10, offset: 0 });
    assert.deepEqual([pending.total, pending.sends.map((s) => s.commitHash)], [1, [second!.hash]]);
    const page = await store.listIncomingSends("b", { pending: false, limit: 1, offset: 1 });
    assert.deepEqual([page.total, page.sends.map((s) => s.commitHash)], [2, [second!.hash]]);
    // Sends from a contract are not incoming to it.
    assert.deepEqual(await store.listIncomingSends("a", { pending: false, limit: 10, offset: 0 }), {
      sends: [],
      total: 0,
    });
  });

  it("rejects effects the constraints forbid, with the engine's codes, storing nothing", async () => {
    const store = await fresh();
    const { a, b, send } = await issueAndSend(store);
    const head = a[2]!;
    const [next] = testChain("a", 1, head.hash, 3);
    const sendOf = (amount: number, assetId = "tok"): AssetEffect => ({
      kind: "send",
      commitHash: next!.hash,
      from: "a",
      to: "b",
      issuer: "a",
      assetId,
      amount,
    });
    const cases: [string, AssetEffect, number][] = [
      ["insufficient_balance", sendOf(71), -32024],
      ["asset_not_found", sendOf(1, "nope"), -32022],
      [
        "asset_exists",
        { kind: "create", issuer: "a", assetId: "tok", quantity: 5, divisibility: 1, commitHash: next!.hash },
        -32040,
      ],
    ];
    for (const [reason, effect, rpc] of cases) {
      const d = await assertContractErrorAsync(
        () => store.appendCommits("a", head.hash, [next!], { assetEffects: [effect] }),
        "VALIDATION_FAILED",
        reason,
      );
      assert.equal(d.rpc_code, rpc);
    }
    const [recv] = testChain("b", 1, b[0]!.hash, 1);
    const recvOf = (sendCommitHash: string, contractId: string): AssetEffect => ({
      kind: "recv",
      sendCommitHash,
      recvCommitHash: recv!.hash,
      contractId,
    });
    const missing = await assertContractErrorAsync(
      () => store.appendCommits("b", b[0]!.hash, [recv!], { assetEffects: [recvOf("00".repeat(32), "b")] }),
      "VALIDATION_FAILED",
      "send_not_found",
    );
    assert.equal(missing.rpc_code, -32030);
    const [aRecv] = testChain("a", 1, head.hash, 3, "recv");
    await assertContractErrorAsync(
      () =>
        store.appendCommits("a", head.hash, [aRecv!], {
          assetEffects: [{ kind: "recv", sendCommitHash: send, recvCommitHash: aRecv!.hash, contractId: "a" }],
        }),
      "VALIDATION_FAILED",
      "wrong_recipient",
    );
    // Nothing of the failed appends stayed: heads, balances and the receipt are unchanged.
    assert.equal((await store.getContract("a"))!.length, 3);
    assert.equal((await store.getContract("b"))!.length, 1);
    assert.deepEqual((await store.getAssets("a")).balances, [{ issuer: "a", assetId: "tok", amount: 70 }]);
    assert.deepEqual((await store.getAssets("b")).balances, []);
    assert.equal((await store.getSend(send))!.receivedBy, null);
  });

  it("credits a SEND exactly once when 64 receivers race for it", async () => {
    const store = await fresh();
    const { send } = await issueAndSend(store);
    const outcomes = await Promise.all(Array.from({ length: 64 }, (_, i) => receiveWithRetry(store, send, `r${i}`)));
    assert.equal(outcomes.filter((o) => o === "ok").length, 1);
    assert.deepEqual(new Set(outcomes.filter((o) => o !== "ok")), new Set(["already_received"]));
    assert.deepEqual((await store.getAssets("b")).balances, [{ issuer: "a", assetId: "tok", amount: 30 }]);
    assert.equal((await store.getContract("b"))!.length, 2);
    // Conservation (PROTOCOL.md §6): balances plus sent-not-received equal the quantity.
    const total = [...(await store.getAssets("a")).balances, ...(await store.getAssets("b")).balances];
    assert.equal(
      total.reduce((n, x) => n + x.amount, 0),
      100,
    );
  });
}
