/**
 * Schema version 14 on both dialects (src/store/schema.ts): `tlog_public_key.origin`, the
 * log's origin recorded with its key. A store of version 13 records a key and no origin (it
 * was recorded before origins were); the first hub that loads that key afterwards records its
 * origin, and from then on a hub with another origin is refused (`log_origin_mismatch`), as
 * one with another key is. A hub with another key records no origin.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import pg from "pg";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { encodeHex } from "../src/contract/hex.js";
import { publicKeyFromSeed } from "../src/contract/keys.js";
import { loadLogKey } from "../src/store/loadLogKey.js";
import { migratePg } from "../src/store/postgres/migrate.js";
import { PostgresStore } from "../src/store/postgres/PostgresStore.js";
import type { Store } from "../src/store/Store.js";
import Database from "../src/store/sqlite/Database.js";
import { migrate } from "../src/store/sqlite/migrate.js";
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { testDatabase } from "./support/pg.js";

const BEFORE = 13;
const RECORD_V13 = "INSERT INTO tlog_public_key (id, public_key) VALUES (1, $1)";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** On a store of version 13 migrated with `seed`'s key recorded and no origin: what version 14 does. */
async function assertOriginRecordedAtNextLoad(store: Store, seed: Buffer, read: () => Promise<unknown>) {
  assert.deepEqual(await read(), [{ public_key: encodeHex(publicKeyFromSeed(seed)), origin: null }]);
  // Another key is refused for its key, and its origin is not recorded.
  await assertContractErrorAsync(
    () => loadLogKey(store, { seed: randomBytes(32), origin: "log.example/other" }),
    "INTERNAL",
    "log_key_mismatch",
  );
  assert.deepEqual(await read(), [{ public_key: encodeHex(publicKeyFromSeed(seed)), origin: null }]);
  const key = await loadLogKey(store, { seed, origin: "log.example/a" });
  assert.equal(key.origin, "log.example/a");
  assert.deepEqual(await read(), [{ public_key: encodeHex(publicKeyFromSeed(seed)), origin: "log.example/a" }]);
  assert.equal((await loadLogKey(store, { seed, origin: "log.example/a" })).origin, "log.example/a");
  const details = await assertContractErrorAsync(
    () => loadLogKey(store, { seed, origin: "log.example/b" }),
    "INTERNAL",
    "log_origin_mismatch",
  );
  assert.deepEqual(details, { reason: "log_origin_mismatch", recorded: "log.example/a", origin: "log.example/b" });
  // No --log-origin: the default origin is another origin too.
  await assertContractErrorAsync(() => loadLogKey(store, { seed }), "INTERNAL", "log_origin_mismatch");
}

describe("schema version 14 on SQLite", () => {
  it("adds the origin to a recorded key; the next hub with that key records its own, and another origin is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "migration-v14-"));
    dirs.push(dir);
    const seed = randomBytes(32);
    const db = new Database(join(dir, "hub.sqlite"));
    db.pragma("journal_mode = WAL");
    assert.equal(migrate(db, 1_700_000_000, BEFORE), BEFORE);
    db.prepare(RECORD_V13.replace("$1", "?")).run(encodeHex(publicKeyFromSeed(seed)));
    db.close();
    const store = await SqliteStore.open({ dataDir: dir });
    const reader = new Database(join(dir, "hub.sqlite"), { readonly: true });
    try {
      await assertOriginRecordedAtNextLoad(store, seed, async () =>
        reader.prepare("SELECT public_key, origin FROM tlog_public_key").all(),
      );
    } finally {
      reader.close();
      await store.close();
    }
  });
});

describe("schema version 14 on PostgreSQL", () => {
  const open = (url: string, schema: string) => PostgresStore.open({ connectionString: url, schema, poolSize: 2 });

  /** A version-13 schema recording `seed`'s key, as a hub of that version left it. */
  async function at13(url: string, schema: string, seed: Buffer): Promise<void> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA "${schema}"`);
      await client.query(`SET search_path TO "${schema}"`);
      assert.equal(await migratePg(client, 1_700_000_000, schema, BEFORE), BEFORE);
      await client.query(RECORD_V13, [encodeHex(publicKeyFromSeed(seed))]);
    } finally {
      await client.end();
    }
  }

  it("adds the origin to a recorded key; the next hub with that key records its own, and another origin is refused", async () => {
    const db = await testDatabase();
    const schema = db.freshSchema();
    const seed = randomBytes(32);
    await at13(db.url, schema, seed);
    const store = await open(db.url, schema);
    const reader = new pg.Client({ connectionString: db.url });
    await reader.connect();
    try {
      await assertOriginRecordedAtNextLoad(store, seed, async () => {
        const { rows } = await reader.query(`SELECT public_key, origin FROM "${schema}".tlog_public_key`);
        return rows;
      });
    } finally {
      await reader.end();
      await store.close();
    }
  });

  it("of instances loading the recorded key at once with two origins, one records its origin and the other is refused", async () => {
    const db = await testDatabase();
    const schema = db.freshSchema();
    const seed = randomBytes(32);
    await at13(db.url, schema, seed);
    const [one, two] = await Promise.all([open(db.url, schema), open(db.url, schema)]);
    try {
      const results = await Promise.allSettled([
        loadLogKey(one, { seed, origin: "log.example/one" }),
        loadLogKey(two, { seed, origin: "log.example/two" }),
      ]);
      const loaded = results.filter((r) => r.status === "fulfilled");
      const refused = results.filter((r) => r.status === "rejected");
      assert.equal(loaded.length, 1);
      assert.equal(refused.length, 1);
      assert.equal((refused[0]!.reason as { details?: { reason?: string } }).details?.reason, "log_origin_mismatch");
      const winner = loaded[0]!.value.origin;
      assert.deepEqual(await two.recordLogKey(publicKeyFromSeed(seed), "log.example/three"), {
        publicKey: publicKeyFromSeed(seed),
        origin: winner,
      });
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});
