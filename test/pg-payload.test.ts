import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { openStore } from "../src/store/openStore.js";
import { parseCommitPayload } from "../src/store/postgres/CommitListener.js";
import { PostgresStore } from "../src/store/postgres/PostgresStore.js";
import { commitChannel } from "../src/store/postgres/pgPool.js";
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { testDatabase } from "./support/pg.js";

it("parses commit notifications and ignores anything else", () => {
  assert.deepEqual(parseCommitPayload("c_1:41"), { contractId: "c_1", index: 41 });
  assert.deepEqual(parseCommitPayload("a-b:0"), { contractId: "a-b", index: 0 });
  for (const bad of [undefined, "", "c1", ":3", "c1:", "c1:-1", "c1:1.5", "c1:x", "c1:99999999999999999"])
    assert.equal(parseCommitPayload(bad), null, String(bad));
});

it("names one channel per schema and refuses schema names that are not plain identifiers", async () => {
  assert.equal(commitChannel(undefined), "contract_commits");
  assert.equal(commitChannel("tenant_a"), "contract_commits_tenant_a");
  for (const schema of ["A", "x-y", 'x"; drop', "1x", ""])
    await assertContractErrorAsync(
      () => PostgresStore.open({ connectionString: "postgres://127.0.0.1/none", schema }),
      "INVALID_REQUEST",
      "schema",
    );
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
