import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import Database from "./Database.js";
import { GroupCommitter } from "./GroupCommitter.js";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A WAL database on a real file, with SQLite's own checkpoints off so only the policy's run. */
function walDatabase(): Database.Database {
  const dir = mkdtempSync(join(tmpdir(), "group-commit-"));
  dirs.push(dir);
  const db = new Database(join(dir, "t.sqlite"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("wal_autocheckpoint = 0");
  db.exec("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  return db;
}

/** Bytes of the database file itself: it grows only when a checkpoint copies pages out of the WAL. */
const fileBytes = (db: Database.Database) => statSync(db.name).size;

const turn = () => new Promise((resolve) => setImmediate(resolve));

it("checkpoints after the policy's count of transactions, once their answers are out", async () => {
  const db = walDatabase();
  const committer = new GroupCommitter(db, { transactions: 3, intervalMs: 3_600_000 });
  const insert = db.prepare("INSERT INTO t (k, v) VALUES (?, ?)");
  for (let k = 1; k <= 2; k++) {
    await committer.run(() => insert.run(k, "x".repeat(5000)));
    await turn();
  }
  assert.equal(committer.transactions, 2);
  assert.equal(committer.checkpoints, 0, "two transactions are below the policy's three");
  const before = fileBytes(db);
  assert.ok(before < 10_000, `the rows are still only in the WAL (file ${before} bytes)`);

  // The third transaction's promise settles before its checkpoint runs (a later turn).
  await committer.run(() => insert.run(3, "x".repeat(5000)));
  assert.equal(committer.checkpoints, 0, "the answer does not wait for the checkpoint");
  await turn();
  assert.equal(committer.checkpoints, 1);

  // The three rows (5,000 bytes each) were copied into the database file.
  assert.ok(fileBytes(db) >= before + 15_000, `file ${fileBytes(db)} bytes after the checkpoint`);
  db.close();
});

it("checkpoints on the interval when transactions are few, and never without a policy", async () => {
  const db = walDatabase();
  const byTime = new GroupCommitter(db, { transactions: 1_000, intervalMs: 0 });
  const insert = db.prepare("INSERT INTO t (k, v) VALUES (?, ?)");
  await byTime.run(() => insert.run(1, "a"));
  await turn();
  assert.equal(byTime.checkpoints, 1);

  const none = new GroupCommitter(db);
  const before = fileBytes(db);
  for (let k = 2; k <= 5; k++) await none.run(() => insert.run(k, "b".repeat(5000)));
  await turn();
  assert.equal(none.checkpoints, 0);
  assert.equal(fileBytes(db), before, "without a policy the rows stay in the WAL");
  db.close();
});

it("a failing checkpoint loses no acknowledged write", async () => {
  const db = walDatabase();
  const committer = new GroupCommitter(db, { transactions: 1, intervalMs: 0 });
  const insert = db.prepare("INSERT INTO t (k, v) VALUES (?, ?)");
  await committer.run(() => insert.run(1, "kept"));
  // Closed before the scheduled checkpoint runs: the pragma throws, and the committer swallows it.
  db.close();
  await turn();
  assert.equal(committer.checkpoints, 0);
  const reopened = new Database(db.name, { readonly: true });
  assert.deepEqual(reopened.prepare("SELECT v FROM t WHERE k = 1").get(), { v: "kept" });
  reopened.close();
});
