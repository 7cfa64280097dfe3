import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import { ContractError } from "../../contract/ContractError.js";
import type { ErrorCode } from "../../contract/errorCodes.js";
import { siblingModule, startWorker } from "../../lib/startWorker.js";

/** What a worker answers for one task. */
export type TaskReply =
  | { id: number; ok: true; result: unknown; ms: number }
  | {
      id: number;
      ok: false;
      ms: number;
      error: { contract: boolean; code?: string; message: string; details?: Record<string, unknown> };
    };

/** A finished task: its result and the milliseconds the worker spent on it. */
export interface TaskOutcome<T> {
  result: T;
  ms: number;
}

interface Job {
  id: number;
  task: string;
  payload: unknown;
  resolve(outcome: TaskOutcome<unknown>): void;
  reject(err: unknown): void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
}

/**
 * A small pool of worker threads for work whose cost grows with its input, so the event loop
 * only parses, routes and answers. Tasks are named functions of the worker entry
 * (poolWorker.ts, TASKS); payloads and results are structured-cloned. Workers start on first
 * use, one per core by default, and hold the process open only while they have a task.
 * A task that throws a ContractError rejects with an equal ContractError; a worker that dies
 * rejects its task and is replaced.
 */
export class WorkerPool {
  readonly size: number;
  readonly #entry: URL;
  readonly #slots: Slot[] = [];
  readonly #queue: Job[] = [];
  #nextId = 1;
  #closed = false;

  constructor(entry: URL = siblingModule("poolWorker", import.meta.url), size?: number) {
    this.#entry = entry;
    this.size = Math.max(1, size ?? availableParallelism());
  }

  /** Runs `task(payload)` on a worker. */
  run<T>(task: string, payload: unknown): Promise<TaskOutcome<T>> {
    if (this.#closed) return Promise.reject(new Error("worker pool closed"));
    return new Promise<TaskOutcome<T>>((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, task, payload, resolve: resolve as Job["resolve"], reject });
      this.#dispatch();
    });
  }

  /** Tasks waiting for a free worker. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Terminates the workers; queued and running tasks reject. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(new Error("worker pool closed"));
    await Promise.all(this.#slots.splice(0).map((slot) => slot.worker.terminate()));
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      let slot = this.#slots.find((s) => s.job === null);
      if (slot === undefined) {
        if (this.#slots.length >= this.size) return;
        slot = this.#spawn();
      }
      const job = this.#queue.shift()!;
      slot.job = job;
      slot.worker.ref();
      slot.worker.postMessage({ id: job.id, task: job.task, payload: job.payload });
    }
  }

  #spawn(): Slot {
    const worker = startWorker(this.#entry);
    const slot: Slot = { worker, job: null };
    this.#slots.push(slot);
    worker.on("message", (reply: TaskReply) => {
      const job = slot.job;
      if (job === null || job.id !== reply.id) return;
      slot.job = null;
      worker.unref();
      if (reply.ok) job.resolve({ result: reply.result, ms: reply.ms });
      else job.reject(Object.assign(reviveError(reply.error), { workMs: reply.ms }));
      this.#dispatch();
    });
    const fail = (err: unknown) => {
      const i = this.#slots.indexOf(slot);
      if (i < 0) return;
      this.#slots.splice(i, 1);
      slot.job?.reject(err instanceof Error ? err : new Error(`worker exited: ${String(err)}`));
      slot.job = null;
      if (!this.#closed) this.#dispatch();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`worker exited with code ${code}`)));
    worker.unref();
    return slot;
  }
}

/** The milliseconds a worker spent on a task that failed (0 when it did not run). */
export function workMsOf(err: unknown): number {
  const ms = (err as { workMs?: unknown } | null)?.workMs;
  return typeof ms === "number" ? ms : 0;
}

function reviveError(e: Extract<TaskReply, { ok: false }>["error"]): Error {
  if (e.contract && e.code !== undefined) {
    return new ContractError(e.code as ErrorCode, e.message, e.details);
  }
  return new Error(e.message);
}
