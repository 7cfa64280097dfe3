import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { openStore } from "../src/store/openStore.js";
import { parseCommitPayload, parseProposalPayload } from "../src/store/postgres/CommitListener.js";
import { PostgresStore } from "../src/store/postgres/PostgresStore.js";
import { checkedSchema, commitChannel, pgChannels, proposalChannel } from "../src/store/postgres/pgPool.js";
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { created } from "./store-contract.js";
import { testDatabase } from "./support/pg.js";
import { testChain } from "./support/testChain.js";

it("parses commit notifications and ignores anything else", () => {
  assert.deepEqual(parseCommitPayload("c_1:41"), { contractId: "c_1", index: 41 });
  assert.deepEqual(parseCommitPayload("a-b:0"), { contractId: "a-b", index: 0 });
  for (const bad of [undefined, "", "c1", ":3", "c1:", "c1:-1", "c1:1.5", "c1:x", "c1:99999999999999999"])
    assert.equal(parseCommitPayload(bad), null, String(bad));
});

it("parses proposal notifications and ignores anything else", () => {
  const hash = "0a".repeat(32);
  assert.deepEqual(parseProposalPayload(`c_1:${hash}`), { contractId: "c_1", hash });
  assert.deepEqual(parseProposalPayload(`a:b:${hash}`), { contractId: "a:b", hash });
  for (const bad of [
    undefined,
    "",
    `:${hash}`,
    "c1:41",
    `c1:${hash.toUpperCase()}`,
    `c1:${hash}0`,
    `c1:${hash.slice(2)}`,
  ])
    assert.equal(parseProposalPayload(bad), null, String(bad));
});

it("names two channels per schema and refuses schema names that are not plain identifiers", async () => {
  assert.equal(commitChannel(undefined), "contract_commits");
  assert.equal(commitChannel("tenant_a"), "contract_commits_tenant_a");
  assert.equal(proposalChannel("tenant_a"), "contract_proposals_tenant_a");
  // The longest schema name accepted still gives channel names PostgreSQL takes whole (63 bytes).
  const longest = `s${"x".repeat(43)}`;
  assert.equal(checkedSchema(longest), longest);
  for (const channel of Object.values(pgChannels(longest))) assert.ok(channel.length <= 63, channel);
  for (const schema of ["A", "x-y", 'x"; drop', "1x", "", `${longest}x`])
    await assertContractErrorAsync(
      () => PostgresStore.open({ connectionString: "postgres://127.0.0.1/none", schema }),
      "INVALID_REQUEST",
      "schema",
    );
});

it("appends and notifies in a schema of the longest accepted name", async () => {
  const db = await testDatabase();
  const schema = `s${"x".repeat(43)}`;
  const store = await PostgresStore.open({ connectionString: db.url, schema, poolSize: 2 });
  const heard: string[] = [];
  const listener = await store.listenCommits({ onCommit: (n) => heard.push(`${n.contractId}:${n.index}`) });
  try {
    await store.appendCommits("long", null, testChain("long", 1), created());
    for (let i = 0; i < 500 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(heard, ["long:0"]);
  } finally {
    await listener.close();
    await store.close();
    await db.drop();
  }
});

it("opens SQLite without a database URL and PostgreSQL with one", async () => {
  const dir = mkdtempSync(join(tmpdir(), "open-store-"));
  const db = await testDatabase();
  try {
    const sqlite = await openStore({ dataDir: dir, databaseUrl: null });
    assert.ok(sqlite instanceof SqliteStore);
    await sqlite.close();
    const postgres = await openStore({ dataDir: dir, databaseUrl: db.url, poolSize: 2 });
    assert.ok(postgres instanceof PostgresStore);
    await postgres.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  }
});
