import { Worker } from "node:worker_threads";
import { MAX_STACK_SLOTS } from "./instrumentModule.js";
import type { WasmModuleHandle } from "./wasmApi.js";

/** What the worker thread (predicateWorker.js) answers for one job. */
export type WorkerReply =
  | { id: number; status: "returned"; remaining: bigint; output: Uint8Array }
  | { id: number; status: "trapped"; remaining: bigint; depth: number; message: string }
  | { id: number; status: "bad_output"; remaining: bigint; message: string };

/** One evaluation as the worker thread runs it. */
export interface WorkerJob {
  module: WasmModuleHandle;
  input: Uint8Array;
  gasLimit: number;
  timeoutMs: number;
  maxOutputBytes: number;
}

/** How a job ended: the worker's reply, or the host gave up on the thread. */
export type WorkerOutcome = { kind: "reply"; reply: WorkerReply } | { kind: "timeout" } | { kind: "lost"; why: string };

const WORKER_URL = new URL("./predicateWorker.js", import.meta.url);
// Twice the call-depth budget of native stack, so the budget (not V8's limit) stops recursion.
const STACK_MB = Math.ceil((MAX_STACK_SLOTS * 8 * 2) / 2 ** 20);

/**
 * One worker thread of the predicate pool, running one job at a time. A job past its
 * wall-clock backstop gets the thread terminated (which stops even a gas-free infinite
 * loop); the next job spawns a fresh thread. The thread is unref'd while idle, so an idle
 * pool never keeps the process alive.
 */
export class PredicateThread {
  private worker: Worker | undefined;
  private online: Promise<void> | undefined;
  private current: { id: number; done: (o: WorkerOutcome) => void; timer: NodeJS.Timeout | undefined } | undefined;
  private nextId = 1;

  /** True while a job runs (or its thread starts). */
  get busy(): boolean {
    return this.current !== undefined;
  }

  /** Runs `job`; never rejects (a dead or stopped thread is an outcome). Call only when idle. */
  run(job: WorkerJob): Promise<WorkerOutcome> {
    if (this.current) throw new Error("PredicateThread.run: already busy");
    const id = this.nextId++;
    return new Promise((done) => {
      this.current = { id, done, timer: undefined };
      void this.start(id, job);
    });
  }

  /** Stops the thread; the next job starts a fresh one. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    this.online = undefined;
    if (w) await w.terminate();
  }

  private async start(id: number, job: WorkerJob): Promise<void> {
    if (!this.worker) this.online = this.spawn();
    const worker = this.worker!;
    await this.online;
    if (this.current?.id !== id || this.worker !== worker) return; // lost while starting
    // The clock starts once the thread is up, so spawning (tens of ms) never eats a job's budget.
    this.current.timer = setTimeout(() => this.timeOut(id), job.timeoutMs);
    worker.ref();
    worker.postMessage({
      id,
      module: job.module,
      input: job.input,
      gasLimit: BigInt(job.gasLimit),
      maxOutputBytes: job.maxOutputBytes,
    });
  }

  private spawn(): Promise<void> {
    const worker = new Worker(WORKER_URL, {
      // The entry is plain JavaScript: skip the parent's loaders (tsx) for a faster start.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16, stackSizeMb: STACK_MB },
    });
    worker.unref();
    this.worker = worker;
    worker.on("message", (reply: WorkerReply) => this.finish(reply.id, { kind: "reply", reply }));
    const lost = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.online = undefined;
      if (this.current) this.finish(this.current.id, { kind: "lost", why });
    };
    worker.on("error", (e) => lost(e.message));
    worker.on("exit", (code) => lost(`worker exited with code ${code}`));
    return new Promise((resolve) => worker.once("online", () => resolve()));
  }

  private timeOut(id: number): void {
    if (this.current?.id !== id) return;
    const worker = this.worker;
    this.worker = undefined;
    this.online = undefined;
    void worker?.terminate();
    this.finish(id, { kind: "timeout" });
  }

  private finish(id: number, outcome: WorkerOutcome): void {
    if (this.current?.id !== id) return;
    const { done, timer } = this.current;
    clearTimeout(timer);
    this.current = undefined;
    this.worker?.unref();
    done(outcome);
  }
}
