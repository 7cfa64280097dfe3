/**
 * An embedded hub given no log key loads the one kept with its store (src/store/loadLogKey.ts):
 * a failed load is not kept, so the checkpoint request after the cause passed succeeds
 * (it used to fail until a restart); and the key must be the one the store records as its log's.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { encodeHex } from "../src/contract/hex.js";
import { publicKeyFromSeed } from "../src/contract/keys.js";
import { Hub } from "../src/hub/Hub.js";
import { loadLogKey } from "../src/store/loadLogKey.js";
import { PostgresStore } from "../src/store/postgres/PostgresStore.js";
import { SqliteStore } from "../src/store/sqlite/SqliteStore.js";
import { verifyCheckpoint } from "../src/tlog/checkpoint.js";
import { testDatabase } from "./support/pg.js";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "log-key-load-"));
  dirs.push(d);
  return d;
}

const keyText = (seed: Buffer) =>
  JSON.stringify({ name: "log", seed: encodeHex(seed), public_key: encodeHex(publicKeyFromSeed(seed)) });

/** The hub's checkpoint, verified against the key it names. */
async function verifiedCheckpoint(hub: Hub): Promise<{ size: number; publicKey: string }> {
  const key = await hub.getCheckpointKey();
  const publicKey = Buffer.from(key.public_key.slice("ed25519:".length), "hex");
  const cp = await hub.getCheckpoint();
  return { size: verifyCheckpoint(cp.checkpoint, key.origin, publicKey).size, publicKey: key.public_key };
}

describe("an embedded hub whose log key failed to load", () => {
  it("loads it again at the next request once its key file is fixed (SQLite)", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "log-key.json"), "{ half a key");
    const hub = new Hub({ store: await SqliteStore.open({ dataDir: dir }) }, true);
    try {
      await assertContractErrorAsync(() => hub.getCheckpoint(), "INVALID_REQUEST", "log_key_malformed");
      await assertContractErrorAsync(() => hub.getCheckpointKey(), "INVALID_REQUEST", "log_key_malformed");
      const seed = randomBytes(32);
      writeFileSync(join(dir, "log-key.json"), keyText(seed));
      assert.deepEqual(await verifiedCheckpoint(hub), {
        size: 0,
        publicKey: `ed25519:${encodeHex(publicKeyFromSeed(seed))}`,
      });
    } finally {
      await hub.close();
    }
  });

  it("loads it again at the next request once the database takes connections again (PostgreSQL)", async () => {
    const db = await testDatabase();
    const schema = db.freshSchema();
    const hub = new Hub({ store: await PostgresStore.open({ connectionString: db.url, schema }) }, true);
    try {
      await db.adminQuery(`ALTER DATABASE ${db.name} ALLOW_CONNECTIONS false`);
      try {
        await db.adminQuery(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'contract-hub'",
          [db.name],
        );
        // The key alone (a checkpoint reads the tree size first, which would fail before it).
        await assertContractErrorAsync(() => hub.getCheckpointKey(), "UNAVAILABLE", "storage");
      } finally {
        await db.adminQuery(`ALTER DATABASE ${db.name} ALLOW_CONNECTIONS true`);
      }
      const served = await verifiedCheckpoint(hub);
      assert.equal(served.size, 0);
      // The key it loaded is the one the database now records as the log's.
      const store = await PostgresStore.open({ connectionString: db.url, schema });
      try {
        assert.equal(`ed25519:${encodeHex(await store.recordLogKey(randomBytes(32)))}`, served.publicKey);
      } finally {
        await store.close();
      }
    } finally {
      await hub.close();
    }
  });
});

describe("the log key a hub loads", () => {
  it("is refused, naming both keys, when the store records another as its log's", async () => {
    const dir = tempDir();
    const store = await SqliteStore.open({ dataDir: dir });
    const hub = new Hub({ store }, true);
    try {
      const recorded = publicKeyFromSeed(randomBytes(32));
      assert.deepEqual(await store.recordLogKey(recorded), recorded);
      // Its own seed is no longer wanted: none is made beside a recorded key.
      const details = await assertContractErrorAsync(() => hub.getCheckpoint(), "INTERNAL", "log_key_mismatch");
      assert.equal(details.recorded, `ed25519:${encodeHex(recorded)}`);
      // A key file put in the data directory is another key.
      const seed = randomBytes(32);
      writeFileSync(join(dir, "log-key.json"), keyText(seed));
      const again = await assertContractErrorAsync(() => hub.getCheckpoint(), "INTERNAL", "log_key_mismatch");
      assert.deepEqual(again, {
        reason: "log_key_mismatch",
        recorded: `ed25519:${encodeHex(recorded)}`,
        key: `ed25519:${encodeHex(publicKeyFromSeed(seed))}`,
      });
      const given = await assertContractErrorAsync(
        () => loadLogKey(store, { seed: randomBytes(32), source: "--log-key other.json" }),
        "INTERNAL",
        "log_key_mismatch",
      );
      assert.equal(given.recorded, `ed25519:${encodeHex(recorded)}`);
    } finally {
      await hub.close();
    }
  });
});
