import type Database from "./Database.js";

interface Job {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit (docs/storage.md), run on the writer thread: write requests queued during one
 * turn of its event loop (all those that arrived while the previous transaction ran) run in
 * ONE `BEGIN IMMEDIATE … COMMIT`, each inside its own SAVEPOINT so a failing request (stale
 * head, constraint) is rolled back alone. Every promise settles only after COMMIT returned,
 * and with `synchronous=FULL` COMMIT returns after the WAL is fsynced: an acknowledged write
 * is durable, and N concurrent writes cost one fsync instead of N.
 */
/**
 * When the write connection copies the WAL back into the database file (a PASSIVE
 * checkpoint), run after a group's answers are posted rather than inside its COMMIT.
 */
export interface CheckpointPolicy {
  /** Checkpoint once this many transactions have committed since the last one… */
  transactions: number;
  /** …or once this many milliseconds have passed since it, if anything was written. */
  intervalMs: number;
}

export class GroupCommitter {
  private queue: Job[] = [];
  private scheduled = false;
  private sinceCheckpoint = 0;
  private lastCheckpoint = Date.now();
  private checkpointScheduled = false;
  /** PASSIVE checkpoints run by the policy (SQLite's own automatic ones are not counted). */
  checkpoints = 0;
  /** Transactions run (one per flush). */
  transactions = 0;
  /** Jobs run inside those transactions. */
  writes = 0;
  private readonly inSavepoint: (job: Job) => unknown;
  private readonly batch: Database.Transaction<(jobs: Job[]) => Outcome[]>;

  constructor(
    private readonly db: Database.Database,
    private readonly checkpoint: CheckpointPolicy | null = null,
  ) {
    // A better-sqlite3 transaction called inside another one runs as a SAVEPOINT, rolled back on throw.
    this.inSavepoint = db.transaction((job: Job) => job.fn());
    this.batch = db.transaction((jobs: Job[]) => jobs.map((job) => this.runOne(job)));
  }

  /** Runs `fn` (synchronous statements) in the next group transaction; resolves after COMMIT. */
  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate (not a microtask) so every request arriving in this loop turn joins the batch.
        setImmediate(() => this.flush());
      }
    });
  }

  /** Runs every queued job now (also used by close()). */
  flush(): void {
    this.scheduled = false;
    const jobs = this.queue;
    this.queue = [];
    if (jobs.length === 0) return;
    this.transactions++;
    this.writes += jobs.length;
    let outcomes: Outcome[];
    try {
      outcomes = this.batch.immediate(jobs);
    } catch (err) {
      // BEGIN or COMMIT failed (busy past the timeout, disk full, I/O): nothing is durable.
      for (const job of jobs) job.reject(err);
      return;
    }
    outcomes.forEach((o, i) => {
      const job = jobs[i]!;
      if (o.ok) job.resolve(o.value);
      else job.reject(o.error);
    });
    this.sinceCheckpoint++;
    this.scheduleCheckpoint();
  }

  /**
   * SQLite's automatic checkpoint runs inside the COMMIT that crosses its threshold, so the
   * whole group waited for it (a tenth of a push's time, docs/benchmarks.md). Here it runs
   * in a later turn, after the answers went out (their posts are microtasks of this one);
   * a group that arrives meanwhile waits for it as before. Durability does not depend on
   * checkpoints: an acknowledged write is in the fsynced WAL.
   */
  private scheduleCheckpoint(): void {
    const policy = this.checkpoint;
    if (policy === null || this.checkpointScheduled) return;
    const due = this.sinceCheckpoint >= policy.transactions || Date.now() - this.lastCheckpoint >= policy.intervalMs;
    if (!due) return;
    this.checkpointScheduled = true;
    setImmediate(() => {
      this.checkpointScheduled = false;
      this.sinceCheckpoint = 0;
      this.lastCheckpoint = Date.now();
      try {
        this.db.pragma("wal_checkpoint(PASSIVE)");
        this.checkpoints++;
      } catch {
        // A failing disk fails the next COMMIT too, which reports it; the WAL keeps every write.
      }
    });
  }

  private runOne(job: Job): Outcome {
    try {
      return { ok: true, value: this.inSavepoint(job) };
    } catch (error) {
      // Some SQLite errors (I/O, full disk) roll back the whole transaction; then no later
      // job may run in autocommit mode, so the batch as a whole fails.
      if (!this.db.inTransaction) throw error;
      return { ok: false, error };
    }
  }
}
