/**
 * Schema version 7 on SQLite (docs/storage.md): a database a hub left at version 6, opened
 * by this code, gets `commits` rebuilt with one unique index on `hash` instead of UNIQUE
 * (contract_id, hash) plus `commits_by_hash`; every row of every table reads back as it was
 * stored, the lookups by hash use the new index, the hub serves and appends on it, and
 * `contract-hub verify` finds it clean.
 */
import assert from "node:assert/strict";
import { cpSync, existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "../src/store/sqlite/Database.js";
import { migrate } from "../src/store/sqlite/migrate.js";
import { MIGRATIONS, SCHEMA_VERSION } from "../src/store/sqlite/migrations.js";
import { BY_HASH, SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { cli } from "./cli-support.js";
import { cleanup, tempDir } from "./hub-fixtures.js";
import { openSqliteHub } from "./support/openSqliteHub.js";
import {
  assertServesAndAppends,
  copySqliteRows,
  dumpSqlite,
  pullTexts,
  type Story,
  writeStory,
} from "./support/schemaV6.js";

/** The indexes of `commits` as `name unique origin` (origin: pk, u for a UNIQUE constraint, c for CREATE INDEX). */
function commitIndexes(db: Database.Database): string[] {
  const list = db.pragma("index_list(commits)") as { name: string; unique: number; origin: string }[];
  return list.map((i) => `${i.name} ${i.unique} ${i.origin}`).sort();
}

const V6_INDEXES = [
  "commits_by_hash 0 c",
  "commits_by_leaf 1 c",
  "sqlite_autoindex_commits_1 1 pk",
  "sqlite_autoindex_commits_2 1 u",
];
const V7_INDEXES = ["commits_by_leaf 1 c", "commits_unique_hash 1 c", "sqlite_autoindex_commits_1 1 pk"];

let story: Story;
let pulled: Record<string, string[]>;
let stored: Record<string, unknown[]>;
/** The schema-6 database, and an untouched copy of it that only `verify` opens. */
let v6: string;
let v6Copy: string;

before(async () => {
  const written = tempDir();
  const hub = await openSqliteHub({ dataDir: written, snapshotEvery: 2 });
  story = await writeStory(hub);
  pulled = await pullTexts(hub.store, story.ids);
  await hub.close();
  v6 = tempDir();
  const db = new Database(join(v6, "hub.sqlite"));
  db.pragma("journal_mode = WAL");
  db.pragma("foreign_keys = ON");
  assert.equal(migrate(db, 1_700_000_000, 6), 6);
  copySqliteRows(join(written, "hub.sqlite"), db);
  stored = dumpSqlite(db);
  assert.deepEqual(commitIndexes(db), V6_INDEXES);
  db.close();
  // The hub's log key, if it made one (it does on its first checkpoint).
  if (existsSync(join(written, "log-key.json"))) cpSync(join(written, "log-key.json"), join(v6, "log-key.json"));
  v6Copy = tempDir();
  cpSync(v6, v6Copy, { recursive: true });
});
after(cleanup);

describe("schema version 7 on SQLite", () => {
  it("opens a schema-6 database at version 7, every row of every table as it was stored", async () => {
    assert.ok(SCHEMA_VERSION >= 7, `schema version ${SCHEMA_VERSION}`);
    // Escrow 3, issuer 4, holder 2, secret 2; each past its first snapshot.
    assert.deepEqual([stored.commits!.length, stored.state_snapshots!.length], [11, story.ids.length]);
    const store = await SqliteStore.open({ dataDir: v6 });
    assert.deepEqual(await pullTexts(store, story.ids), pulled);
    await store.close();
    const db = new Database(join(v6, "hub.sqlite"), { readonly: true });
    assert.deepEqual(
      db.prepare("SELECT version FROM schema_version ORDER BY version").all(),
      MIGRATIONS.map((m) => ({ version: m.version })),
    );
    assert.deepEqual(dumpSqlite(db), stored);
    assert.deepEqual(commitIndexes(db), V7_INDEXES);
    // Columns in the order and with the types versions 1, 3 and 5 gave them.
    assert.deepEqual(
      (db.pragma("table_info(commits)") as { name: string; type: string; notnull: number; pk: number }[]).map(
        (c) => `${c.name} ${c.type} ${c.notnull} ${c.pk}`,
      ),
      [
        "contract_id TEXT 1 1",
        "idx BIGINT 1 2",
        "hash TEXT 1 0",
        "parent TEXT 0 0",
        "data TEXT 1 0",
        "signatures TEXT 1 0",
        "attestations TEXT 0 0",
        "timestamp BIGINT 1 0",
        "signers TEXT 1 0",
        "leaf_index BIGINT 0 0",
        "wire TEXT 0 0",
      ],
    );
    assert.deepEqual(
      (db.pragma("foreign_key_list(commits)") as { table: string; from: string; to: string }[]).map(
        (f) => `${f.from} ${f.table}.${f.to}`,
      ),
      ["contract_id contracts.id"],
    );
    // Nothing refers to the rebuilt table: the one trigger (version 13's) is on `receipts` and touches `sends`.
    assert.deepEqual(
      db.prepare("SELECT type, name, tbl_name FROM sqlite_master WHERE type IN ('view', 'trigger')").all(),
      [{ type: "trigger", name: "receipts_mark_received", tbl_name: "receipts" }],
    );
    assert.doesNotMatch(
      db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger'").pluck().get() as string,
      /commits/,
    );
    assert.deepEqual(db.pragma("integrity_check"), [{ integrity_check: "ok" }]);
    assert.deepEqual(db.pragma("foreign_key_check"), []);
    db.close();
  });

  it("answers every lookup of commits by hash from the unique hash index", () => {
    const db = new Database(join(v6, "hub.sqlite"), { readonly: true });
    const plans = {
      commit: [BY_HASH.commit, ["issuer", story.received]],
      stored: [BY_HASH.stored, ["issuer", JSON.stringify([story.received, story.pending])]],
      leaf: [BY_HASH.leaf, [story.received]],
      incoming: [BY_HASH.incoming(false), [{ contractId: "holder", limit: 10, offset: 0 }]],
      pending: [BY_HASH.incoming(true), [{ contractId: "holder", limit: 10, offset: 0 }]],
    } as const;
    for (const [name, [sql, params]] of Object.entries(plans)) {
      const steps = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
        .map((s) => s.detail)
        .filter((d) => /^(SCAN|SEARCH) (commits|c)\b/.test(d));
      assert.deepEqual(
        steps.map((d) => d.replace(/^(SCAN|SEARCH) (commits|c) /, "")),
        ["USING INDEX commits_unique_hash (hash=?)"],
        name,
      );
    }
    db.close();
  });

  it("serves the migrated contracts and appends to them", async () => {
    const hub = await openSqliteHub({ dataDir: v6 });
    try {
      await assertServesAndAppends(hub, story, pulled);
    } finally {
      await hub.close();
    }
  });

  it("is clean under contract-hub verify, migrated by verify itself or after the hub appended", async () => {
    const home = tempDir();
    for (const dir of [v6Copy, v6]) {
      const r = await cli(["verify", "--data-dir", dir, "--json"], { cwd: home, home });
      assert.equal(r.code, 0, r.stderr);
      const doc = r.json<{ ok: boolean; checked: number; damaged: number; tree: { ok: boolean } }>();
      assert.deepEqual([doc.ok, doc.checked, doc.damaged, doc.tree.ok], [true, story.ids.length, 0, true]);
    }
    const db = new Database(join(v6Copy, "hub.sqlite"), { readonly: true });
    assert.deepEqual(db.prepare("SELECT MAX(version) AS v FROM schema_version").get(), { v: SCHEMA_VERSION });
    assert.deepEqual(dumpSqlite(db), stored);
    db.close();
  });

  it("can run version 7's statements again on a migrated database without changing a row", () => {
    const dir = tempDir();
    cpSync(v6Copy, dir, { recursive: true });
    const db = new Database(join(dir, "hub.sqlite"));
    db.pragma("foreign_keys = ON");
    const v7 = MIGRATIONS.find((m) => m.version === 7)!;
    db.transaction(() => {
      for (const sql of v7.statements) db.exec(sql);
    })();
    assert.deepEqual(commitIndexes(db), V7_INDEXES);
    assert.deepEqual(dumpSqlite(db), stored);
    db.close();
  });
});
