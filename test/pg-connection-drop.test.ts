/**
 * A PostgreSQL connection dropped in the middle of a write (PROTOCOL.md §12, docs/storage.md):
 * the write's transaction is rolled back, so nothing of it is stored (no commit, no leaf, no
 * request nonce, no proposal), the caller gets 503 UNAVAILABLE with `details.reason:
 * "storage"`, and the same write succeeds afterwards through either instance. The write is
 * held on a row lock taken by a test connection, and its backend terminated while it waits.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import pg from "pg";
import type { Caller } from "../src/api/Caller.js";
import { isContractError } from "../src/contract/ContractError.js";
import { buildCommit } from "../src/contract/engine.js";
import { testDatabase } from "./support/pg.js";
import { type Instance, openInstance, Writer } from "./support/pgHubs.js";
import { actionOp, createTreasury } from "./support/treasury.js";

const db = await testDatabase();
const open: Instance[] = [];
after(async () => {
  for (const x of open.splice(0)) await x.close();
});

async function pair(): Promise<[Instance, Instance]> {
  const schema = db.freshSchema();
  const a = await openInstance(db.url, schema);
  const b = await openInstance(db.url, schema);
  open.push(a, b);
  return [a, b];
}

/**
 * Runs `write` while a test connection holds the row lock `lockSql` takes, terminates the
 * hub's backend once it waits for that lock, then lets go; returns what `write` threw.
 */
async function droppedWhileWaiting(schema: string, lockSql: string, params: unknown[], write: () => Promise<unknown>) {
  const holder = new pg.Client({ connectionString: db.url });
  await holder.connect();
  try {
    await holder.query(`SET search_path TO "${schema}"`);
    await holder.query("BEGIN");
    await holder.query(lockSql, params);
    let settled = false;
    const outcome = write().then(
      () => "the write succeeded",
      (err: unknown) => err,
    );
    void outcome.finally(() => {
      settled = true;
    });
    let pid: number | undefined;
    for (let i = 0; pid === undefined; i++) {
      if (settled) assert.fail(`the write ended before it waited for the lock: ${String(await outcome)}`);
      if (i > 6000) assert.fail("the write never waited for the lock");
      // Inside its transaction the holder would see one snapshot of the activity view: clear it.
      await holder.query("SELECT pg_stat_clear_snapshot()");
      const { rows } = await holder.query<{ pid: number }>(
        `SELECT a.pid FROM pg_stat_activity a WHERE a.application_name = 'contract-hub'
           AND a.wait_event_type = 'Lock' AND $1 = ANY (pg_blocking_pids(a.pid))`,
        [(await holder.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid],
      );
      pid = rows[0]?.pid;
      if (pid === undefined) await new Promise((r) => setTimeout(r, 5));
    }
    await holder.query("SELECT pg_terminate_backend($1)", [pid]);
    const err = await outcome;
    await holder.query("ROLLBACK");
    assert.notEqual(err, "the write succeeded");
    return err;
  } finally {
    await holder.end();
  }
}

function assertStorageUnavailable(err: unknown): void {
  assert.ok(isContractError(err, "UNAVAILABLE"), `expected UNAVAILABLE, got ${String(err)}`);
  assert.equal(err.details?.reason, "storage");
  assert.equal(err.details?.storage, "unreachable");
}

describe("PostgreSQL: a connection dropped mid-write", { timeout: 120_000 }, () => {
  it("stores nothing of a push whose connection dropped after its nonce and row lock, and answers 503 storage", async () => {
    const [a, b] = await pair();
    const w = new Writer();
    const id = "dropped-push";
    await a.hub.push(w.caller, id, { commits: [w.genesis(id)] });
    const head = (await a.hub.getState(w.caller, id)).head;
    const commits = w.chain(id, head, 3);
    const nonce = { accessKey: w.key, nonce: "ab".repeat(16), expiresAt: Math.floor(Date.now() / 1000) + 300 };
    const caller: Caller = { ...w.caller, nonce: { ...nonce, spent: false } };
    const sizeBefore = await a.store.treeSize();
    // Held at the tree's size row: the nonce, the contract's row lock and its head check are done.
    const err = await droppedWhileWaiting(
      a.store.schema!,
      "SELECT size FROM tlog_size WHERE id = 1 FOR UPDATE",
      [],
      () => a.hub.push(caller, id, { commits }),
    );
    assertStorageUnavailable(err);
    assert.equal(caller.nonce?.spent, false);
    const record = await b.store.getContract(id);
    assert.equal(record?.length, 1);
    assert.equal(record?.head, head);
    assert.equal(await b.store.treeSize(), sizeBefore);
    assert.equal(await b.store.getCommitByHash(id, commits[0]!.hash), null);
    // The nonce was rolled back with the rest: the retry may carry it.
    const retried = await b.hub.push({ ...w.caller, nonce: { ...nonce, spent: false } }, id, { commits });
    assert.deepEqual(retried, { pushed: 3, head: commits[2]!.hash });
    const log = await a.hub.getLog(w.caller, id, {});
    assert.deepEqual(
      log.commits.map((c) => c.leaf_index),
      [sizeBefore - 1, sizeBefore, sizeBefore + 1, sizeBefore + 2],
    );
    // a's pool reconnects: its next write goes through.
    const more = w.chain(id, commits[2]!.hash, 1, "after");
    assert.deepEqual(await a.hub.push(w.caller, id, { commits: more }), { pushed: 1, head: more[0]!.hash });
  });

  it("answers 503 storage while the database refuses new connections", async () => {
    const [a] = await pair();
    const w = new Writer();
    const id = "refusing";
    await a.hub.push(w.caller, id, { commits: [w.genesis(id)] });
    // A database closed to connections (ALTER DATABASE … ALLOW_CONNECTIONS false, as for
    // maintenance), the hub's connections ended: each new one is refused with SQLSTATE 55000.
    await db.adminQuery(`ALTER DATABASE ${db.name} ALLOW_CONNECTIONS false`);
    try {
      await db.adminQuery(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'contract-hub'",
        [db.name],
      );
      await assert.rejects(a.hub.getState(w.caller, id), (err: unknown) => {
        assertStorageUnavailable(err);
        return true;
      });
      assert.equal((await a.hub.health()).storage, "unreachable");
    } finally {
      await db.adminQuery(`ALTER DATABASE ${db.name} ALLOW_CONNECTIONS true`);
    }
    assert.equal((await a.hub.getState(w.caller, id)).commit_count, 1);
  });

  it("stores no proposal or signature whose connection dropped while it waited for a row lock, and answers 503 storage", async () => {
    const [a, b] = await pair();
    const t = await createTreasury(a.hub, "dropped-proposal", 3, 3);
    const p = buildCommit(t.id, t.head, actionOp("EXECUTE", "dropped"));
    p.head.signatures = t.signature(0, p.hash);
    const err = await droppedWhileWaiting(
      a.store.schema!,
      "SELECT 1 FROM contracts WHERE id = $1 FOR UPDATE",
      [t.id],
      () => a.hub.propose(t.signers[0]!.caller, t.id, { commit: p }),
    );
    assertStorageUnavailable(err);
    assert.equal(await b.store.getProposal(t.id, p.hash), null);
    const again = await b.hub.propose(t.signers[0]!.caller, t.id, { commit: p });
    assert.equal(again.proposal.status, "open");
    // A signature upload dropped while it waits for the proposal's row: not stored either.
    const signed = await droppedWhileWaiting(
      a.store.schema!,
      "SELECT 1 FROM proposals WHERE contract_id = $1 AND hash = $2 FOR UPDATE",
      [t.id, p.hash],
      () => a.hub.signProposal(t.signers[1]!.caller, t.id, p.hash, { signatures: t.signature(1, p.hash) }),
    );
    assertStorageUnavailable(signed);
    assert.deepEqual((await b.store.getProposal(t.id, p.hash))?.signatures, t.signature(0, p.hash));
    const more = await a.hub.signProposal(t.signers[1]!.caller, t.id, p.hash, { signatures: t.signature(1, p.hash) });
    assert.equal(more.proposal.status, "open");
    assert.equal(Object.keys(more.proposal.signatures).length, 2);
  });
});
