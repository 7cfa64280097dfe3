import type { Worker } from "node:worker_threads";
import { ContractError } from "../../contract/ContractError.js";
import type { ErrorCode } from "../../contract/errorCodes.js";
import { siblingModule, startWorker } from "../../lib/startWorker.js";
import { postBatch, TurnBatcher } from "../../lib/TurnBatcher.js";
import type { CommitInsert } from "./commitRows.js";
import type { SqliteWrites, WriteName } from "./SqliteWrites.js";
import type { ClonedError, Staged, StagingMessage, WriteReply, WriteRequest } from "./writerWorker.js";

type Args<N extends WriteName> = Parameters<SqliteWrites[N]>;
type Result<N extends WriteName> = ReturnType<SqliteWrites[N]>;
/** A request as a store sends it (the thread adds the ids). */
type Request =
  | { name: "open"; path: string; busyTimeoutMs: number }
  | { name: "close" }
  | { name: WriteName; args: unknown[]; staged?: Staged };

interface Pending {
  writer: SqliteWriter;
  /** The thread it was sent to (a newer one may run by the time an older one exits). */
  worker: Worker;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * The process's one writer thread (writerWorker.ts), shared by its SQLite stores: started by
 * the first store that opens, ended when the last one closes. One thread, not one per store,
 * because starting a thread costs far more than a message (tests open hundreds of stores).
 */
class WriterThread {
  /** Bumped whenever a new thread starts: a store whose connection lived in an older one opens it again. */
  generation = 0;
  private worker: Worker | null = null;
  /** The current thread's outbox: requests made in one turn travel as one message. */
  private outbox: TurnBatcher<WriteRequest> | null = null;
  private users = 0;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  acquire(): void {
    this.users++;
  }

  /** One store fewer; the last one ends the thread (its connections are closed by then). */
  async release(): Promise<void> {
    if (--this.users > 0 || this.worker === null) return;
    const worker = this.worker;
    this.worker = null;
    // Held while it ends: an idle (unref'd) thread's exit would not keep the process alive
    // for this await, and a caller with nothing else pending would never see it resolve.
    worker.ref();
    await worker.terminate();
  }

  request(writer: SqliteWriter, request: Request): Promise<unknown> {
    const worker = this.worker ?? this.start();
    const outbox = this.outbox!;
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { writer, worker, resolve, reject });
      // Batched by turn: the appends of requests handled in one loop iteration reach the
      // thread together, so they share one transaction and its fsync.
      outbox.push({ id, db: writer.db, ...request } as WriteRequest);
    });
  }

  /** A number no other staged write of this process uses. */
  stagingId(): number {
    return this.nextId++;
  }

  /**
   * Posts a part of a big write's rows now, on its own (not batched by turn: the parts of one
   * write must not travel as one big message, which is what they avoid). They precede the
   * write itself, which goes through the outbox later. A discard never starts a thread.
   */
  stage(message: StagingMessage): void {
    const worker = message.name === "discard" ? this.worker : (this.worker ?? this.start());
    worker?.postMessage([message]);
  }

  private settle(worker: Worker, reply: WriteReply): void {
    const job = this.take(worker, reply.id);
    if (job === undefined) return;
    job.writer.transactions = reply.transactions;
    job.writer.writes = reply.writes;
    if (reply.ok) job.resolve(reply.value);
    else job.reject(reviveError(reply.error));
  }

  /** Removes a request from the pending ones. */
  private take(worker: Worker, id: number): Pending | undefined {
    const job = this.pending.get(id);
    if (job === undefined) return undefined;
    this.pending.delete(id);
    // Idle, the thread does not keep the process alive: pending writes do. One being
    // terminated stays held (release): a write may be answered after the close that ends it.
    if (this.pending.size === 0 && this.worker === worker) worker.unref();
    return job;
  }

  private start(): Worker {
    const worker = startWorker(siblingModule("writerWorker", import.meta.url));
    this.worker = worker;
    // A write whose arguments cannot be cloned fails alone, never reaching the thread.
    this.outbox = new TurnBatcher((batch) =>
      postBatch(worker, batch, (m, err) => this.take(worker, m.id)?.reject(err)),
    );
    this.generation++;
    worker.on("message", (replies: WriteReply[]) => {
      for (const reply of replies) this.settle(worker, reply);
    });
    const lost = (err: Error) => {
      if (this.worker === worker) this.worker = null;
      // Nothing of these writes was acknowledged: they fail, and the next write starts a new thread.
      for (const [id, job] of this.pending) {
        if (job.worker !== worker) continue;
        this.pending.delete(id);
        job.reject(err);
      }
    };
    worker.on("error", lost);
    worker.on("exit", (code) => lost(new Error(`The SQLite writer thread exited with code ${code}`)));
    return worker;
  }
}

const thread = new WriterThread();
let nextDb = 1;

/**
 * A store's write connection, on the writer thread: each write is sent there and its promise
 * settles with the answer, which comes only after the write's group COMMIT returned. The event
 * loop never waits for an fsync.
 */
export class SqliteWriter {
  /** Group transactions run on this store's connection (as of the latest answer). */
  transactions = 0;
  /** Writes run inside those transactions. */
  writes = 0;
  /** The synchronous level of the write connection (2: FULL). */
  synchronous = -1;
  readonly db = nextDb++;
  private generation = 0;
  private closed = false;

  private constructor(
    private readonly path: string,
    private readonly busyTimeoutMs: number,
  ) {}

  /** Opens the write connection of the database at `path` (already created and migrated). */
  static async open(path: string, busyTimeoutMs: number): Promise<SqliteWriter> {
    const writer = new SqliteWriter(path, busyTimeoutMs);
    thread.acquire();
    try {
      await writer.connect();
    } catch (err) {
      await thread.release();
      throw err;
    }
    return writer;
  }

  /** Runs the write `name` in the connection's next group transaction; resolves once it is durable. */
  async run<N extends WriteName>(name: N, ...args: Args<N>): Promise<Result<N>> {
    if (this.closed) throw new ContractError("UNAVAILABLE", "The store is closed");
    if (this.generation !== thread.generation) await this.connect();
    return (await thread.request(this, { name, args })) as Result<N>;
  }

  /** A new staging for a write whose rows go ahead in parts (stage), then runStaged. */
  staging(): Staged {
    return { append: thread.stagingId(), parts: 0 };
  }

  /** Sends `rows` to the writer thread, held there until the write of `staged` runs. */
  stage(staged: Staged, rows: CommitInsert[]): void {
    if (this.closed) throw new ContractError("UNAVAILABLE", "The store is closed");
    thread.stage({ name: "part", append: staged.append, rows });
    staged.parts++;
  }

  /** Drops what was staged for a write that will not run (harmless once it ran). */
  discard(staged: Staged): void {
    thread.stage({ name: "discard", append: staged.append });
  }

  /**
   * Runs appendCommits with the rows staged before `rows` (writerWorker.ts): refused, storing
   * nothing, unless the thread holds every part (it restarted in between, say).
   */
  async runStaged(staged: Staged, ...args: Args<"appendCommits">): Promise<Result<"appendCommits">> {
    if (this.closed) throw new ContractError("UNAVAILABLE", "The store is closed");
    if (this.generation !== thread.generation) await this.connect();
    return (await thread.request(this, { name: "appendCommits", args, staged })) as Result<"appendCommits">;
  }

  /** Waits for the writes sent before, then closes the write connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // The thread handles messages in order: every write sent before this is answered first.
    await thread.request(this, { name: "close" }).catch(() => {});
    await thread.release();
  }

  private async connect(): Promise<void> {
    const opened = thread.request(this, { name: "open", path: this.path, busyTimeoutMs: this.busyTimeoutMs });
    this.generation = thread.generation;
    this.synchronous = (await opened) as number;
  }
}

function reviveError(e: ClonedError): Error {
  if (e.contract) return new ContractError(e.code as ErrorCode, e.message, e.details);
  const err = new Error(e.message);
  if (e.code !== undefined) Object.assign(err, { code: e.code });
  return err;
}
