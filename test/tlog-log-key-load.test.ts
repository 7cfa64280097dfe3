/**
 * An embedded hub given no log key loads the one kept with its store (src/store/loadLogKey.ts):
 * a failed load is not kept, so the checkpoint request after the cause passed succeeds
 * (it used to fail until a restart); and the key must be the one the store records as its log's.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { AccessRegistry } from "../src/auth/AccessRegistry.js";
import { Authenticator } from "../src/auth/Authenticator.js";
import { assertContractErrorAsync } from "../src/contract/assertContractError.js";
import { encodeHex } from "../src/contract/hex.js";
import { publicKeyFromSeed } from "../src/contract/keys.js";
import { startServers } from "../src/http/startServers.js";
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
      // The operator's file, not the caller's request: a server-side error.
      await assertContractErrorAsync(() => hub.getCheckpoint(), "INTERNAL", "log_key_malformed");
      await assertContractErrorAsync(() => hub.getCheckpointKey(), "INTERNAL", "log_key_malformed");
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
        const recorded = await store.recordLogKey(randomBytes(32), "other.example/log");
        assert.equal(`ed25519:${encodeHex(recorded.publicKey)}`, served.publicKey);
      } finally {
        await store.close();
      }
    } finally {
      await hub.close();
    }
  });
});

describe("a served embedded hub whose log key file cannot be used", () => {
  for (const [reason, spoil] of [
    ["log_key_malformed", (path: string) => writeFileSync(path, "{ half a key")],
    ["log_key_unreadable", (path: string) => mkdirSync(path)],
  ] as const) {
    it(`answers GET /checkpoint, GET /checkpoint/key and JSON-RPC getCheckpoint with a server error (${reason})`, async () => {
      const dir = tempDir();
      spoil(join(dir, "log-key.json"));
      const hub = new Hub({ store: await SqliteStore.open({ dataDir: dir }) }, true);
      const servers = await startServers(
        {
          hub,
          authenticator: new Authenticator({ store: hub.store }),
          registry: new AccessRegistry({ store: hub.store }),
          rateLimit: 0,
          logger: false,
        },
        { host: "127.0.0.1", port: 0, rpcPort: 0, rpc: true },
      );
      try {
        for (const path of ["/checkpoint", "/checkpoint/key"]) {
          const res = await fetch(`${servers.restUrl}${path}`);
          assert.equal(res.status, 500, path);
          const text = await res.text();
          const body = JSON.parse(text) as { code: string; details?: { reason?: string } };
          assert.equal(body.code, "INTERNAL", path);
          assert.equal(body.details?.reason, reason, path);
          // The operator's file system is not the caller's business: no path in the answer.
          assert.ok(!text.includes(dir), `${path} answered the data directory: ${text}`);
        }
        const rpc = await fetch(servers.rpcUrl!, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getCheckpoint" }),
        });
        const rpcText = await rpc.text();
        assert.ok(!rpcText.includes(dir), `getCheckpoint answered the data directory: ${rpcText}`);
        const answer = JSON.parse(rpcText) as { error?: { code: number; data?: { code?: string } } };
        assert.equal(answer.error?.code, -32603);
        assert.equal(answer.error?.data?.code, "INTERNAL");
      } finally {
        await servers.close();
        await hub.close();
      }
    });
  }
});

describe("the log key a hub loads", () => {
  it("is refused, naming both keys, when the store records another as its log's", async () => {
    const dir = tempDir();
    const store = await SqliteStore.open({ dataDir: dir });
    const hub = new Hub({ store }, true);
    try {
      const recorded = publicKeyFromSeed(randomBytes(32));
      assert.deepEqual((await store.recordLogKey(recorded, "log.example/a")).publicKey, recorded);
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

  it("is refused, naming both origins, when the store records its key with another origin", async () => {
    const store = await SqliteStore.open({ dataDir: tempDir() });
    const hub = new Hub({ store }, true);
    try {
      const own = publicKeyFromSeed(await store.logKeySeed());
      assert.deepEqual(await store.recordLogKey(own, "elsewhere.example/log"), {
        publicKey: own,
        origin: "elsewhere.example/log",
      });
      const details = await assertContractErrorAsync(() => hub.getCheckpointKey(), "INTERNAL", "log_origin_mismatch");
      assert.equal(details.recorded, "elsewhere.example/log");
      assert.match(String(details.origin), /^contract-hub\/[0-9a-f]{16}$/);
    } finally {
      await hub.close();
    }
  });
});
