/**
 * `GET /contracts/:id/assets` and JSON-RPC `getAssets` answer a page (docs/api.md): `limit`
 * (default and largest 1,000) assets by asset id and balances by issuer, then asset id, from
 * `offset`, with `assets_total` and `balances_total`. A contract can create 64 assets a commit,
 * so the unpaged answer grew without bound, read on the event loop where it stalled every
 * other request (PROTOCOL.md §18). A contract's books up to a page still come whole; the SDK's
 * getAllAssets and the CLI's `balances` page through the rest. Malformed paging is 400
 * `bad_query`, as on the other paged routes. The hub reads the page from the store, not the books.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import type { Operation } from "../src/contract/Commit.js";
import { buildCommit } from "../src/contract/engine.js";
import { ANONYMOUS } from "../src/hub/HubApi.js";
import Database from "../src/store/sqlite/Database.js";
import { ASSETS_PAGE } from "../src/store/sqlite/SqliteStore.js";
import { contracts, create } from "./asset-fixtures.js";
import { type LiveHub, type Party, startLiveHub } from "./e2e-transports.js";
import { Actor, cleanup, tempDir } from "./hub-fixtures.js";
import { counted } from "./support/countedStore.js";
import { openSqliteHub } from "./support/openSqliteHub.js";

after(cleanup);

/** `count` CREATEs of `prefix<n>`, 64 a commit (the most a commit carries). */
function createCommits(id: string, head: string, prefix: string, count: number) {
  const commits = [];
  for (let i = 0; i < count; i += 64) {
    const ops: Operation[] = Array.from({ length: Math.min(64, count - i) }, (_, j) => ({
      method: "create",
      value: { asset_id: `${prefix}${String(i + j).padStart(5, "0")}`, quantity: 10, divisibility: 1 },
    }));
    const c = buildCommit(id, head, ops);
    commits.push(c);
    head = c.hash;
  }
  return commits;
}

interface Page {
  contract_id: string;
  assets: { asset_id: string; issuer: string; quantity: number; divisibility: number }[];
  balances: { asset_id: string; issuer: string; amount: number }[];
  assets_total: number;
  balances_total: number;
}

describe("GET /contracts/:id/assets pages", { timeout: 120_000 }, () => {
  /** More assets than a page holds. */
  const MANY = 1_030;
  let live: LiveHub;
  let alice: Party;

  const get = async (path: string) => {
    const res = await fetch(live.servers.restUrl + path);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const rpc = (params: Record<string, unknown>) => live.rest.rpc("getAssets", params) as Promise<Page>;

  before(async () => {
    live = await startLiveHub();
    alice = await live.party("alice");
    const client = live.rest.withKey(alice.access.seed);
    for (const id of ["busy", "small"]) await client.createContract({ contract_id: id, model: null, rules: [] });
    // Pushed a few commits at a time: a push is bounded too.
    const commits = createCommits("busy", (await client.getState("busy")).head, "a", MANY);
    for (let i = 0; i < commits.length; i += 4) await client.push("busy", commits.slice(i, i + 4));
    await client.push("small", createCommits("small", (await client.getState("small")).head, "s", 3));
  });
  after(async () => {
    await live.close();
  });

  it("answers the first 1,000 of each list by default, in key order, with both totals", async () => {
    const { status, body } = await get("/contracts/busy/assets");
    assert.equal(status, 200);
    const page = body as unknown as Page;
    assert.deepEqual([page.assets.length, page.balances.length], [1000, 1000]);
    assert.deepEqual([page.assets_total, page.balances_total], [MANY, MANY]);
    const ids = page.assets.map((a) => a.asset_id);
    assert.deepEqual(ids, [...ids].sort());
    assert.equal(ids[0], "a00000");
    assert.deepEqual(
      page.balances.map((b) => b.asset_id),
      ids,
    );
  });

  it("answers limit rows from offset, the same on REST and JSON-RPC", async () => {
    const { body } = await get("/contracts/busy/assets?limit=3&offset=1028");
    assert.deepEqual(body, {
      contract_id: "busy",
      assets: ["a01028", "a01029"].map((asset_id) => ({ asset_id, issuer: "busy", quantity: 10, divisibility: 1 })),
      balances: ["a01028", "a01029"].map((asset_id) => ({ asset_id, issuer: "busy", amount: 10 })),
      assets_total: MANY,
      balances_total: MANY,
    });
    assert.deepEqual(await rpc({ contract_id: "busy", limit: 3, offset: 1028 }), body);
    assert.deepEqual(await rpc({ contract_id: "busy" }), (await get("/contracts/busy/assets")).body);
  });

  it("answers a contract's books whole when they fit a page", async () => {
    const { body } = await get("/contracts/small/assets");
    assert.deepEqual([(body as unknown as Page).assets.length, body.assets_total, body.balances_total], [3, 3, 3]);
  });

  it("refuses malformed paging with 400 INVALID_REQUEST, as GET /contracts/:id/incoming does", async () => {
    for (const [query, field] of [
      ["limit=-1", "limit"],
      ["limit=abc", "limit"],
      ["limit=1.5", "limit"],
      ["limit=1001", "limit"],
      ["offset=x", "offset"],
      ["offset=-2", "offset"],
    ] as const) {
      const assets = await get(`/contracts/busy/assets?${query}`);
      assert.equal(assets.status, 400, query);
      assert.equal(assets.body.code, "INVALID_REQUEST", query);
      const incoming = await get(`/contracts/busy/incoming?${query}`);
      assert.deepEqual([assets.status, assets.body.details], [incoming.status, incoming.body.details], query);
      await assert.rejects(
        rpc({ contract_id: "busy", [field]: field === "limit" ? -1 : "x" }),
        (err: { code?: string }) => err.code === "INVALID_REQUEST",
      );
    }
  });

  it("gives the SDK every asset and balance through getAllAssets", async () => {
    const all = await live.rest.getAllAssets("busy");
    assert.deepEqual(
      [all.assets.length, all.balances.length, all.assets_total, all.balances_total],
      [MANY, MANY, MANY, MANY],
    );
    assert.equal(new Set(all.assets.map((a) => a.asset_id)).size, MANY);
    assert.equal(all.assets.at(-1)!.asset_id, "a01029");
  });
});

describe("the hub reads one page of the books", () => {
  it("reads the rows of the page asked for, however many assets the contract created", async () => {
    const dir = tempDir();
    let probe: ReturnType<typeof counted> | undefined;
    const hub = await openSqliteHub({
      dataDir: dir,
      wrapStore: (s) => {
        probe = counted(s);
        return probe.store;
      },
    });
    try {
      const alice = new Actor("alice");
      await contracts(hub, alice, "busy");
      for (const c of createCommits("busy", (await hub.store.getContract("busy"))!.head, "a", 320))
        await hub.push(alice.caller, "busy", { commits: [c] });
      await create(hub, alice, "busy", "gold", 5);
      const before = probe!.rows();
      const page = await hub.getAssets(ANONYMOUS, "busy", { limit: 10, offset: 300 });
      assert.deepEqual([page.assets.length, page.balances.length, page.assets_total], [10, 10, 321]);
      // The page's 20 rows and the contract's record (access check); not the 642 of the books.
      assert.ok(probe!.rows() - before <= 22, `read ${probe!.rows() - before} rows`);
      for (const [q, field] of [
        [{ limit: -1 }, "limit"],
        [{ offset: "x" }, "offset"],
      ] as const) {
        const details = await assertContractErrorAsync(
          () => hub.getAssets(ANONYMOUS, "busy", q),
          "INVALID_REQUEST",
          "bad_query",
        );
        assert.equal(details.field, field);
      }
    } finally {
      await hub.close();
    }

    // Each list is read in order from its primary key: no sort of the contract's rows.
    const db = new Database(`${dir}/hub.sqlite`, { readonly: true });
    for (const [name, sql] of Object.entries(ASSETS_PAGE)) {
      const steps = (
        db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ contractId: "busy", limit: 10, offset: 0 }) as {
          detail: string;
        }[]
      ).map((s) => s.detail);
      assert.equal(steps.length, 1, `${name}: ${steps.join("; ")}`);
      assert.match(
        steps[0]!,
        /^SEARCH (assets|balances) USING INDEX sqlite_autoindex_\w+ \((issuer|contract_id)=\?\)$/,
      );
    }
    db.close();
  });
});
