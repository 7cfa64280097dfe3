/**
 * Schema version 12 on PostgreSQL (src/store/schema.ts): `tlog_public_key`, the log key's
 * record. A database of version 11 that instances shared with two keys (one given
 * `--log-key`, one using the seed in `tlog_key`) gets an empty record; the first instance to
 * load its key after the upgrade records it, and the other is refused from then on.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, it } from "node:test";
import pg from "pg";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { encodeHex } from "../src/contract/hex.js";
import { publicKeyFromSeed } from "../src/contract/keys.js";
import { loadLogKey } from "../src/store/loadLogKey.js";
import { migratePg } from "../src/store/postgres/migrate.js";
import { PostgresStore } from "../src/store/postgres/PostgresStore.js";
import { testDatabase } from "./support/pg.js";

const db = await testDatabase();
after(() => db.drop());

it("records no key of its own: the first instance to load one after the upgrade does, and the other is refused", async () => {
  const schema = db.freshSchema();
  const stored = randomBytes(32);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA "${schema}"`);
    await client.query(`SET search_path TO "${schema}"`);
    assert.equal(await migratePg(client, 1_700_000_000, schema, 11), 11);
    await client.query("INSERT INTO tlog_key (id, seed) VALUES (1, $1)", [encodeHex(stored)]);
  } finally {
    await client.end();
  }
  const [one, two] = await Promise.all([
    PostgresStore.open({ connectionString: db.url, schema, poolSize: 2 }),
    PostgresStore.open({ connectionString: db.url, schema, poolSize: 2 }),
  ]);
  try {
    const given = randomBytes(32);
    const key = await loadLogKey(one, { seed: given, source: "--log-key a.json" });
    assert.deepEqual(key.publicKey, publicKeyFromSeed(given));
    const details = await assertContractErrorAsync(() => loadLogKey(two), "INTERNAL", "log_key_mismatch");
    assert.deepEqual(details, {
      reason: "log_key_mismatch",
      recorded: `ed25519:${encodeHex(publicKeyFromSeed(given))}`,
      key: `ed25519:${encodeHex(publicKeyFromSeed(stored))}`,
    });
    // The seed the database held is still there: an instance given it as a file is refused too.
    await assertContractErrorAsync(() => loadLogKey(two, { seed: stored }), "INTERNAL", "log_key_mismatch");
    assert.deepEqual(await two.logKeySeed(), stored);
  } finally {
    await Promise.all([one.close(), two.close()]);
  }
});
