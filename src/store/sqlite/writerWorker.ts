/**
 * The SQLite writer thread (docs/storage.md, "The writer thread"): it owns the write
 * connection of every SQLite store the process opened, runs each write the main thread sends
 * as one job of that database's group commit, and answers once the group's COMMIT (and with
 * it the WAL's fsync) returned. Messages that arrive while a transaction runs queue up and
 * form the next group.
 */
import { parentPort } from "node:worker_threads";
import { isContractError } from "../../contract/ContractError.js";
import { postBatch, TurnBatcher } from "../../lib/TurnBatcher.js";
import { announceThread } from "../../lib/threadRoles.js";
import type { CommitInsert } from "./commitRows.js";
import Database from "./Database.js";
import { GroupCommitter } from "./GroupCommitter.js";
import { SqliteWrites, type WriteName } from "./SqliteWrites.js";

/** A message to the thread: open or close a store's write connection, or run one write on it. */
export type WriteRequest = { id: number; db: number } & (
  | { name: "open"; path: string; busyTimeoutMs: number }
  | { name: "close" }
  | { name: WriteName; args: unknown[]; staged?: Staged }
);

/** The parts a big append's rows were sent in ahead of it: the append says how many it expects. */
export interface Staged {
  append: number;
  parts: number;
}

/**
 * Ahead of a big append, its rows in parts, held here until the append comes (and dropped
 * then, whatever its outcome), or dropped by a discard when it will not come. A thread that
 * dies takes its parts with it: the append then finds some missing and is refused.
 */
export type StagingMessage =
  | { name: "part"; append: number; rows: CommitInsert[] }
  | { name: "discard"; append: number };

/** An error as it crosses the thread boundary: ContractErrors keep code and details, others their `code`. */
export type ClonedError =
  | { contract: true; code: string; message: string; details?: Record<string, unknown> }
  | { contract: false; message: string; code?: string };

/** The answer to one request, with the database's group commit counters after it. */
export type WriteReply = { id: number; transactions: number; writes: number } & (
  | { ok: true; value: unknown }
  | { ok: false; error: ClonedError }
);

interface Connection {
  db: Database.Database;
  writes: SqliteWrites;
  committer: GroupCommitter;
}

function cloneError(err: unknown): ClonedError {
  if (isContractError(err)) {
    return { contract: true, code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) };
  }
  const code = (err as { code?: unknown } | null)?.code;
  return {
    contract: false,
    message: err instanceof Error ? err.message : String(err),
    ...(typeof code === "string" ? { code } : {}),
  };
}

function open(path: string, busyTimeoutMs: number): Connection {
  const db = new Database(path, { timeout: busyTimeoutMs });
  try {
    // FULL: the WAL is fsynced at every COMMIT, so an acknowledged write survives power loss.
    // (WAL itself is the file's mode, set when the store opened it.)
    db.pragma("synchronous = FULL");
    db.pragma("foreign_keys = ON");
    // Every job of a group commit runs in its own SAVEPOINT, and SQLite keeps the pages a
    // savepoint changes in a statement journal: a temporary file unless temp_store is MEMORY.
    // On file, those journal writes were more than half of this thread's write calls
    // (docs/benchmarks.md, "The write path, third round").
    db.pragma("temp_store = MEMORY");
    // Checkpoints run between groups (GroupCommitter); SQLite's own, inside a COMMIT, only
    // past a WAL of 10,000 pages (40 MiB), should those ever fall behind.
    db.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
  } catch (err) {
    db.close();
    throw err;
  }
  return { db, writes: new SqliteWrites(db), committer: new GroupCommitter(db, CHECKPOINTS) };
}

/** About SQLite's default rhythm (1,000 WAL pages) at this hub's write sizes, but off the COMMIT. */
const CHECKPOINTS = { transactions: 50, intervalMs: 250 };
const BACKSTOP_CHECKPOINT_PAGES = 10_000;

// For the hub bench's split of CPU time by thread (HUB_THREAD_ROLES_FILE); nothing when unset.
announceThread("writer");
const port = parentPort!;
const connections = new Map<number, Connection>();
/** Staged parts by append (StagingMessage). */
const staging = new Map<number, CommitInsert[][]>();
// A group's answers are settled in a row once its COMMIT returned: they go back as one
// message, before the checkpoint the group may have scheduled (a later turn).
// An answer whose value cannot be cloned goes back as that error instead.
const replies = new TurnBatcher<WriteReply>(
  (batch) =>
    postBatch(port, batch, ({ id, transactions, writes }, err) =>
      port.postMessage([{ id, transactions, writes, ok: false, error: cloneError(err) } satisfies WriteReply]),
    ),
  "microtask",
);

function answer(
  m: WriteRequest,
  c: Connection | undefined,
  outcome: { ok: true; value: unknown } | { ok: false; error: unknown },
) {
  const counters = { transactions: c?.committer.transactions ?? 0, writes: c?.committer.writes ?? 0 };
  const reply: WriteReply = outcome.ok
    ? { id: m.id, ...counters, ok: true, value: outcome.value }
    : { id: m.id, ...counters, ok: false, error: cloneError(outcome.error) };
  replies.push(reply);
}

/** The main thread sends the requests of one of its turns as one message. */
port.on("message", (requests: (WriteRequest | StagingMessage)[]) => {
  for (const m of requests) {
    if (m.name === "part") stage(m.append, m.rows);
    else if (m.name === "discard") staging.delete(m.append);
    else handle(m);
  }
});

function stage(append: number, rows: CommitInsert[]): void {
  const parts = staging.get(append);
  if (parts === undefined) staging.set(append, [rows]);
  else parts.push(rows);
}

/** An append's arguments with its staged rows put before its own (the last ones); an Error if some are missing. */
function withStaged(args: unknown[], staged: Staged | undefined): unknown[] | Error {
  if (staged === undefined) return args;
  const parts = staging.get(staged.append) ?? [];
  staging.delete(staged.append);
  if (parts.length !== staged.parts) {
    return new Error("The append's rows did not all reach the SQLite writer thread (it restarted)");
  }
  const all = [...args];
  all[2] = parts.flat().concat(args[2] as CommitInsert[]);
  return all;
}

function handle(m: WriteRequest): void {
  const c = connections.get(m.db);
  const args = m.name === "open" || m.name === "close" ? [] : withStaged(m.args, m.staged);
  if (args instanceof Error) {
    answer(m, c, { ok: false, error: args });
    return;
  }
  if (m.name === "open") {
    try {
      const opened = open(m.path, m.busyTimeoutMs);
      connections.set(m.db, opened);
      answer(m, opened, { ok: true, value: Number(opened.db.pragma("synchronous", { simple: true })) });
    } catch (error) {
      answer(m, undefined, { ok: false, error });
    }
    return;
  }
  if (c === undefined) {
    answer(m, c, { ok: false, error: new Error("The store's write connection is closed") });
    return;
  }
  if (m.name === "close") {
    c.committer.flush();
    connections.delete(m.db);
    c.db.close();
    answer(m, c, { ok: true, value: null });
    return;
  }
  const write = c.writes[m.name] as (...args: unknown[]) => unknown;
  c.committer
    .run(() => write.apply(c.writes, args))
    .then(
      (value) => answer(m, c, { ok: true, value }),
      (error: unknown) => answer(m, c, { ok: false, error }),
    );
}
