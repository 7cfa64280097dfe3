/**
 * Several hub instances on one PostgreSQL database (PROTOCOL.md §5, §6, §12): each has
 * its own pool, so these races go through the database's locks and constraints exactly
 * as separate processes would.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import pg from "pg";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { isContractError } from "../src/contract/ContractError.js";
import { toPulledCommit } from "../src/contract/StoredCommit.js";
import { ANONYMOUS } from "../src/hub/HubApi.js";
import { migratePg } from "../src/store/postgres/migrate.js";
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from "../src/store/postgres/migrations.js";
import { PostgresStore } from "../src/store/postgres/PostgresStore.js";
import { issueAndSend, receiveWithRetry } from "./store-contract-assets.js";
import { testDatabase } from "./support/pg.js";
import { type Instance, openInstance, Writer } from "./support/pgHubs.js";
import { testChain } from "./support/testChain.js";

const db = await testDatabase();
const open: { close(): Promise<unknown> }[] = [];
after(async () => {
  for (const x of open.splice(0)) await x.close();
});

async function store(schema: string): Promise<PostgresStore> {
  const s = await PostgresStore.open({ connectionString: db.url, schema, poolSize: 6 });
  open.push(s);
  return s;
}

async function instances(n: number): Promise<Instance[]> {
  const schema = db.freshSchema();
  const out: Instance[] = [];
  for (let i = 0; i < n; i++) out.push(await openInstance(db.url, schema));
  open.push(...out);
  return out;
}

describe("PostgreSQL: several instances on one database", { timeout: 60_000 }, () => {
  it("applies each migration once when four instances start at the same time", async () => {
    const schema = db.freshSchema();
    await Promise.all([store(schema), store(schema), store(schema), store(schema)]);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT version FROM "${schema}".schema_version`);
      assert.deepEqual(
        rows.map((r) => Number(r.version)).sort((x, y) => x - y),
        PG_MIGRATIONS.map((m) => m.version),
      );
      // Commit JSON is kept as text: JSONB would reorder keys and change hash inputs.
      const types = await client.query(
        `SELECT column_name, data_type FROM information_schema.columns
          WHERE table_schema = $1 AND table_name = 'commits' AND column_name IN ('data', 'signatures', 'attestations', 'signers')`,
        [schema],
      );
      assert.deepEqual(new Set(types.rows.map((r) => r.data_type)), new Set(["text"]));
      await client.query(`INSERT INTO "${schema}".schema_version VALUES ($1, 0)`, [PG_SCHEMA_VERSION + 1]);
    } finally {
      await client.end();
    }
    await assertContractErrorAsync(() => store(schema), "INTERNAL", "schema_too_new");
  });

  it("upgrades a schema-4 database to commits stored once: version 5 joins wire bytes, version 10 empties them, pulls keep every byte", async () => {
    const schema = db.freshSchema();
    const first = await store(schema);
    const chain = testChain("up", 4);
    await first.appendCommits("up", null, chain, {
      contract: { owner: "ab".repeat(32), createdAt: 1_700_000_000, private: false },
    });
    const expected = chain.map((c, i) => JSON.stringify(toPulledCommit({ ...c, leafIndex: i })));
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const wires = async () =>
        (await client.query<{ wire: string | null }>(`SELECT wire FROM "${schema}".commits ORDER BY idx`)).rows.map(
          (r) => r.wire,
        );
      // A current hub stores each commit's bytes once: no wire copy.
      assert.deepEqual(await wires(), [null, null, null, null]);
      await client.query(
        `ALTER TABLE "${schema}".commits DROP COLUMN wire; DROP TABLE "${schema}".state_snapshots;
         DELETE FROM "${schema}".schema_version WHERE version >= 5`,
      );
      // Version 5 alone (as a hub of that version left it): the SQL join gives each row's push format.
      await client.query(`SET search_path TO "${schema}"`);
      assert.equal(await migratePg(client, 1_700_000_000, schema, 5), 5);
      await client.query("RESET search_path");
      assert.deepEqual(
        await wires(),
        expected.map((e) => `${e.slice(0, e.indexOf(',"body":'))}}`),
      );
      const reopened = await store(schema);
      assert.deepEqual(await wires(), [null, null, null, null]);
      const pulled: string[] = [];
      for await (const page of reopened.readPullTexts("up", 0, 10)) pulled.push(...page);
      assert.deepEqual(pulled, expected);
    } finally {
      await client.end();
    }
  });

  it("lets exactly one of 20 concurrent pushes on one head win across two hubs", async () => {
    const [a, b] = await instances(2);
    const w = new Writer();
    const g = w.genesis("race");
    await a!.hub.push(w.caller, "race", { commits: [g] });
    // Both instances have the genesis state cached, so each validates its rivals as fresh.
    assert.equal((await b!.hub.getState(ANONYMOUS, "race")).commit_count, 1);
    const rivals = Array.from({ length: 20 }, (_, i) => w.chain("race", g.hash, 3, `r${i}-`));
    const results = await Promise.allSettled(
      rivals.map((commits, i) => (i % 2 === 0 ? a! : b!).hub.push(w.caller, "race", { commits })),
    );
    const winners = results.flatMap((r, i) => (r.status === "fulfilled" ? [i] : []));
    assert.equal(winners.length, 1);
    for (const r of results) if (r.status === "rejected") assert.ok(isContractError(r.reason, "CONFLICT"));
    const expected = [g.hash, ...rivals[winners[0]!]!.map((c) => c.hash)];
    for (const x of [a!, b!]) {
      const { commits, head } = await x.hub.pull(ANONYMOUS, "race", {});
      assert.deepEqual(
        commits.map((c) => c.hash),
        expected,
      );
      assert.equal(head, expected[3]);
    }
    // The losing instance notices the moved head and accepts the next push on it.
    const loser = winners[0]! % 2 === 0 ? b! : a!;
    const next = w.chain("race", expected[3]!, 1, "next");
    assert.deepEqual(await loser.hub.push(w.caller, "race", { commits: next }), { pushed: 1, head: next[0]!.hash });
  });

  it("lets exactly one instance create a contract raced for by both", async () => {
    const [a, b] = await instances(2);
    const w = new Writer();
    const g = w.genesis("born");
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a! : b!).hub.push(w.caller, "born", { commits: [g] })),
    );
    // A push of an already stored genesis is an idempotent no-op (pushed 0) or a CONFLICT; one stores it.
    const pushed = results.map((r) => (r.status === "fulfilled" ? r.value.pushed : 0));
    assert.equal(
      pushed.reduce((x, y) => x + y, 0),
      1,
    );
    for (const r of results) if (r.status === "rejected") assert.ok(isContractError(r.reason, "CONFLICT"));
    assert.equal((await a!.store.getContract("born"))!.length, 1);
  });

  it("credits a SEND exactly once when 64 receivers on two instances race for it", async () => {
    const schema = db.freshSchema();
    const [a, b] = [await store(schema), await store(schema)];
    const { send } = await issueAndSend(a);
    const outcomes = await Promise.all(
      Array.from({ length: 64 }, (_, i) => receiveWithRetry(i % 2 === 0 ? a : b, send, `r${i}`)),
    );
    assert.equal(outcomes.filter((o) => o === "ok").length, 1);
    assert.deepEqual(new Set(outcomes.filter((o) => o !== "ok")), new Set(["already_received"]));
    assert.deepEqual((await b.getAssets("b")).balances, [{ issuer: "a", assetId: "tok", amount: 30 }]);
    assert.equal((await a.getSend(send))!.receivedBy, (await b.getCommitAt("b", 1))!.hash);
  });

  it("shares nonces and access keys between instances", async () => {
    const schema = db.freshSchema();
    const [a, b] = [await store(schema), await store(schema)];
    const expires = Math.floor(Date.now() / 1000) + 300;
    const outcomes = await Promise.all(
      Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? a : b).useNonce("k".repeat(64), "n", expires)),
    );
    assert.equal(outcomes.filter(Boolean).length, 1);
    assert.equal(await b.useNonce("k".repeat(64), "n", expires), false);
    const id1 = "ab".repeat(32);
    const key = "12".repeat(32);
    await a.registerAccessKey(id1, key, 1);
    await assertContractErrorAsync(() => b.registerAccessKey("cd".repeat(32), key, 2), "CONFLICT", "access_key_taken");
    await b.revokeAccessKey(key, 3);
    assert.equal((await a.getAccessKey(key))!.revokedAt, 3);
  });
});
