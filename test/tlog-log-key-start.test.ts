/**
 * `contract-hub start` signs with the key the store records as its log's, or does not start
 * (docs/transparency.md, "The log key and the origin"). Instances sharing one PostgreSQL
 * database, some given `--log-key` and some not, or given different files, used to start and
 * serve checkpoints signed by two keys; a SQLite hub restarted with another key did the same.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import pg from "pg";
import type { StartFlags } from "../src/cli/config.js";
import { EXIT_FAILED, EXIT_OK } from "../src/cli/Io.js";
import { startCommand } from "../src/cli/startCommand.js";
import { encodeHex } from "../src/contract/hex.js";
import { publicKeyFromSeed } from "../src/contract/keys.js";
import { testDatabase } from "./support/pg.js";

const dirs: string[] = [];
/** Hubs started in this process and not yet stopped: a failed assertion skips a test's own stop. */
const running = new Set<() => Promise<number>>();
after(async () => {
  // A hub left serving kept this file's process alive, so it hung instead of reporting the failure.
  for (const stop of running) await stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "log-key-start-"));
  dirs.push(d);
  return d;
}

/** A log key file (the form `contract-hub keygen` writes) and its public key as `ed25519:<hex>`. */
function keyFile(dir: string, name: string): { path: string; publicKey: string } {
  const seed = randomBytes(32);
  const publicKey = encodeHex(publicKeyFromSeed(seed));
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ name, seed: encodeHex(seed), public_key: publicKey }), { mode: 0o600 });
  return { path, publicKey: `ed25519:${publicKey}` };
}

interface Started {
  /** The exit code once it stops (at once when it refused to start). */
  code: Promise<number>;
  stderr: () => string;
  /** While it runs: the public key `GET /checkpoint/key` names. */
  servedKey: () => Promise<string>;
  /** While it runs: the origin `GET /checkpoint/key` names. */
  servedOrigin: () => Promise<string>;
  stop: () => Promise<number>;
}

/** Runs `start` in this process until it prints its log key (it runs) or returns (it refused). */
async function start(flags: StartFlags): Promise<Started & { running: boolean }> {
  const out: string[] = [];
  const err: string[] = [];
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const code = startCommand(
    { port: "0", rpc: false, wasm: false, ...flags },
    { out: (s) => void out.push(s), err: (s) => void err.push(s) },
    { version: "0.0.0-test", env: { HUB_LOG_LEVEL: "silent" }, stop: stopped },
  );
  let exited = false;
  const stopIt = () => {
    stop();
    return code;
  };
  running.add(stopIt);
  const exit = () => {
    exited = true;
    running.delete(stopIt);
  };
  void code.then(exit, exit);
  // Bounded: an unbounded wait outlived its test's failure and kept the file running.
  for (let waited = 0; !exited && !out.some((l) => l.startsWith("Log ")); waited += 10) {
    if (waited > 60_000) assert.fail(`start neither printed its log key nor exited: ${err.join("\n")}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const rest = /REST\s+(\S+)/.exec(out.join("\n"))?.[1];
  return {
    running: !exited,
    code,
    stderr: () => err.join("\n"),
    servedKey: async () =>
      ((await (await fetch(`${rest}/checkpoint/key`)).json()) as { public_key: string }).public_key,
    servedOrigin: async () => ((await (await fetch(`${rest}/checkpoint/key`)).json()) as { origin: string }).origin,
    stop: stopIt,
  };
}

/** Asserts `start` refused with exit 1, naming the recorded key and (when given) the refused one. */
async function assertRefused(s: Started & { running: boolean }, recorded: string, refused?: string): Promise<void> {
  if (s.running) await s.stop();
  assert.equal(s.running, false, "it started");
  assert.equal(await s.code, EXIT_FAILED);
  assert.match(s.stderr(), /\(log_key_mismatch\)$/);
  assert.ok(s.stderr().includes(recorded), s.stderr());
  if (refused !== undefined) assert.ok(s.stderr().includes(refused), s.stderr());
}

/** Asserts `start` refused with exit 1 for its origin, naming the recorded origin and the refused one. */
async function assertOriginRefused(s: Started & { running: boolean }, recorded: string, refused: string) {
  if (s.running) await s.stop();
  assert.equal(s.running, false, "it started");
  assert.equal(await s.code, EXIT_FAILED);
  assert.match(s.stderr(), /\(log_origin_mismatch\)$/);
  assert.ok(s.stderr().includes(JSON.stringify(recorded)), s.stderr());
  assert.ok(s.stderr().includes(JSON.stringify(refused)), s.stderr());
}

describe("instances sharing one PostgreSQL database", () => {
  it("refuse a --log-key file of another key than the first instance's, and start with the same file", async () => {
    const db = await testDatabase();
    const dir = tempDir();
    const a = keyFile(dir, "a");
    const b = keyFile(dir, "b");
    const first = await start({ databaseUrl: db.url, dataDir: dir, logKey: a.path });
    assert.ok(first.running, first.stderr());
    try {
      assert.equal(await first.servedKey(), a.publicKey);
      await assertRefused(await start({ databaseUrl: db.url, dataDir: dir, logKey: b.path }), a.publicKey, b.publicKey);
      // Without --log-key the database has no seed of the recorded key, and makes none.
      await assertRefused(await start({ databaseUrl: db.url, dataDir: dir }), a.publicKey);
      const second = await start({ databaseUrl: db.url, dataDir: dir, logKey: a.path });
      assert.ok(second.running, second.stderr());
      assert.equal(await second.servedKey(), a.publicKey);
      assert.equal(await second.stop(), EXIT_OK);
    } finally {
      await first.stop();
    }
  });

  it("refuse a --log-key file of another key than the one the database stored, and take that key's file", async () => {
    const db = await testDatabase();
    const dir = tempDir();
    const first = await start({ databaseUrl: db.url, dataDir: dir });
    assert.ok(first.running, first.stderr());
    try {
      const stored = await first.servedKey();
      const other = keyFile(dir, "other");
      await assertRefused(
        await start({ databaseUrl: db.url, dataDir: dir, logKey: other.path }),
        stored,
        other.publicKey,
      );
      // The stored key exported to a file is the same key: that instance starts.
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const { rows } = await client.query<{ seed: string }>("SELECT seed FROM tlog_key WHERE id = 1");
      await client.end();
      const path = join(dir, "exported.json");
      writeFileSync(path, JSON.stringify({ name: "log", seed: rows[0]!.seed }), { mode: 0o600 });
      const second = await start({ databaseUrl: db.url, dataDir: dir, logKey: path });
      assert.ok(second.running, second.stderr());
      assert.equal(await second.servedKey(), stored);
      assert.equal(await second.stop(), EXIT_OK);
      const third = await start({ databaseUrl: db.url, dataDir: dir });
      assert.ok(third.running, third.stderr());
      assert.equal(await third.servedKey(), stored);
      assert.equal(await third.stop(), EXIT_OK);
    } finally {
      await first.stop();
    }
  });
});

describe("a SQLite hub restarted", () => {
  it("with a --log-key file of another key than its own refuses; with its own key file it starts", async () => {
    const dir = tempDir();
    const first = await start({ dataDir: dir });
    assert.ok(first.running, first.stderr());
    const own = await first.servedKey();
    assert.equal(await first.stop(), EXIT_OK);
    const other = keyFile(tempDir(), "other");
    await assertRefused(await start({ dataDir: dir, logKey: other.path }), own, other.publicKey);
    const again = await start({ dataDir: dir, logKey: join(dir, "log-key.json") });
    assert.ok(again.running, again.stderr());
    assert.equal(await again.servedKey(), own);
    assert.equal(await again.stop(), EXIT_OK);
  });

  it("without the --log-key it was first started with refuses, and makes no key file", async () => {
    const dir = tempDir();
    const given = keyFile(tempDir(), "given");
    const first = await start({ dataDir: dir, logKey: given.path });
    assert.ok(first.running, first.stderr());
    assert.equal(await first.servedKey(), given.publicKey);
    assert.equal(await first.stop(), EXIT_OK);
    await assertRefused(await start({ dataDir: dir }), given.publicKey);
    assert.equal(existsSync(join(dir, "log-key.json")), false);
    // A key file put in the data directory afterwards is another key: refused too.
    const stray = keyFile(dir, "log-key");
    await assertRefused(await start({ dataDir: dir }), given.publicKey, stray.publicKey);
  });
});

describe("the log's origin", () => {
  it("is one per PostgreSQL database: an instance given another --log-origin, or none, is refused", async () => {
    const db = await testDatabase();
    const dir = tempDir();
    const key = keyFile(dir, "a");
    const first = await start({ databaseUrl: db.url, dataDir: dir, logKey: key.path, logOrigin: "hub.example/log" });
    assert.ok(first.running, first.stderr());
    try {
      assert.equal(await first.servedOrigin(), "hub.example/log");
      await assertOriginRefused(
        await start({ databaseUrl: db.url, dataDir: dir, logKey: key.path, logOrigin: "other.example/log" }),
        "hub.example/log",
        "other.example/log",
      );
      const defaulted = await start({ databaseUrl: db.url, dataDir: dir, logKey: key.path });
      if (defaulted.running) await defaulted.stop();
      assert.equal(defaulted.running, false, "it started");
      assert.match(defaulted.stderr(), /\(log_origin_mismatch\)$/);
      const second = await start({ databaseUrl: db.url, dataDir: dir, logKey: key.path, logOrigin: "hub.example/log" });
      assert.ok(second.running, second.stderr());
      assert.equal(await second.servedOrigin(), "hub.example/log");
      assert.equal(await second.stop(), EXIT_OK);
    } finally {
      await first.stop();
    }
  });

  it("stays with a SQLite hub: restarted with another --log-origin it refuses, with its own it starts", async () => {
    const dir = tempDir();
    const first = await start({ dataDir: dir });
    assert.ok(first.running, first.stderr());
    const origin = await first.servedOrigin();
    assert.equal(await first.stop(), EXIT_OK);
    await assertOriginRefused(
      await start({ dataDir: dir, logOrigin: "moved.example/log" }),
      origin,
      "moved.example/log",
    );
    const again = await start({ dataDir: dir, logOrigin: origin });
    assert.ok(again.running, again.stderr());
    assert.equal(await again.servedOrigin(), origin);
    assert.equal(await again.stop(), EXIT_OK);
  });
});

describe("a --log-key file that cannot be used", () => {
  it("stops start with exit 1 and its reason, malformed or unreadable", async () => {
    const dir = tempDir();
    const bad = join(dir, "half.json");
    writeFileSync(bad, "{ half a key", { mode: 0o600 });
    for (const [path, reason] of [
      [bad, "log_key_malformed"],
      [join(dir, "absent.json"), "log_key_unreadable"],
    ] as const) {
      const s = await start({ dataDir: dir, logKey: path });
      if (s.running) await s.stop();
      assert.equal(s.running, false, "it started");
      assert.equal(await s.code, EXIT_FAILED);
      assert.ok(s.stderr().startsWith("contract-hub start: cannot load the log key: "), s.stderr());
      assert.ok(s.stderr().includes(path), s.stderr());
      assert.ok(s.stderr().endsWith(`(${reason})`), s.stderr());
    }
  });
});
