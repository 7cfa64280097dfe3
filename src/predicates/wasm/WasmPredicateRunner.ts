import { availableParallelism } from "node:os";
import type {
  WasmFailureCause,
  WasmPredicateInput,
  WasmPredicateOutput,
  WasmPredicateResult,
} from "../../contract/WasmPredicate.js";
import { compilePredicate } from "./compilePredicate.js";
import { MAX_STACK_SLOTS } from "./instrumentModule.js";
import { PredicateThread, type WorkerJob, type WorkerOutcome, type WorkerReply } from "./PredicateThread.js";
import { readPredicateOutput } from "./readPredicateOutput.js";

export type { WasmFailureCause, WasmPredicateInput, WasmPredicateOutput, WasmPredicateResult };

/** Limits for one evaluation; every field has the protocol's default. */
export interface WasmPredicateOptions {
  /** Gas budget (default 10,000,000). */
  gasLimit?: number;
  /** Memory cap in 64 KiB pages, declared and grown (default 256). */
  maxMemoryPages?: number;
  /** Wall-clock backstop in milliseconds (default 1000). */
  timeoutMs?: number;
  /** Largest accepted result document in bytes (default 65,536). */
  maxOutputBytes?: number;
}

export const DEFAULT_GAS_LIMIT = 10_000_000;
export const DEFAULT_MAX_MEMORY_PAGES = 256;
export const DEFAULT_TIMEOUT_MS = 1000;
export const DEFAULT_MAX_OUTPUT_BYTES = 65_536;

/** How many worker threads a runner uses by default: one per core. */
export const DEFAULT_WORKERS = Math.max(1, availableParallelism());

interface Job extends WorkerJob {
  resolve: (r: WasmPredicateResult) => void;
}

/**
 * Runs metered predicates in a pool of worker threads (default: one per core), each
 * running one job at a time, so one hostile module holds at most one thread and never the
 * event loop. A job past its wall-clock backstop gets its thread terminated and replaced.
 */
export class WasmPredicateRunner {
  private readonly queue: Job[] = [];
  private readonly workers: PredicateThread[];

  constructor(options: { workers?: number } = {}) {
    const n = options.workers ?? DEFAULT_WORKERS;
    if (!Number.isSafeInteger(n) || n < 1) throw new RangeError("workers must be a positive integer");
    this.workers = Array.from({ length: n }, () => new PredicateThread());
  }

  /** Number of worker threads (started lazily). */
  get size(): number {
    return this.workers.length;
  }

  /** Evaluates a predicate module on one input; never rejects for module faults. */
  async evaluate(
    moduleBytes: Uint8Array,
    input: WasmPredicateInput,
    opts: WasmPredicateOptions = {},
  ): Promise<WasmPredicateResult> {
    const json = JSON.stringify({
      args: input.args,
      contract_id: input.contract_id,
      commit: {
        hash: input.commit.hash,
        parent: input.commit.parent,
        data: input.commit.data,
        labels: input.commit.labels,
        signers: input.commit.signers,
        timestamp: input.commit.timestamp,
      },
      state: input.state,
    });
    return this.evaluateBytes(moduleBytes, new TextEncoder().encode(json), opts);
  }

  /**
   * `evaluate` on an input document already serialised (UTF-8 JSON). `moduleDigest`: the
   * SHA-256 (hex) of `moduleBytes` when the caller knows it (the engine's big modules), so
   * that finding the compilation does not hash megabytes again; it must be that digest.
   */
  async evaluateBytes(
    moduleBytes: Uint8Array,
    input: Uint8Array,
    opts: WasmPredicateOptions = {},
    moduleDigest?: string,
  ): Promise<WasmPredicateResult> {
    const gasLimit = opts.gasLimit ?? DEFAULT_GAS_LIMIT;
    if (!Number.isSafeInteger(gasLimit) || gasLimit < 0)
      throw new RangeError(`gasLimit must be a safe non-negative integer`);
    const compiled = await compilePredicate(moduleBytes, opts.maxMemoryPages ?? DEFAULT_MAX_MEMORY_PAGES, moduleDigest);
    if (!compiled.ok) return failure("invalid_module", 0, compiled.error);
    return new Promise((resolve) => {
      this.queue.push({
        module: compiled.module,
        input,
        gasLimit,
        timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        maxOutputBytes: opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
        resolve,
      });
      this.pump();
    });
  }

  /** Stops every thread; later calls to evaluate start fresh ones. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
  }

  private pump(): void {
    for (const worker of this.workers) {
      if (this.queue.length === 0) return;
      if (worker.busy) continue;
      const job = this.queue.shift()!;
      void worker.run(job).then((outcome) => {
        job.resolve(outcomeResult(outcome, job));
        this.pump();
      });
    }
  }
}

function outcomeResult(outcome: WorkerOutcome, job: Job): WasmPredicateResult {
  if (outcome.kind === "timeout")
    return failure("timeout", job.gasLimit, `wall-clock limit of ${job.timeoutMs} ms exceeded`);
  if (outcome.kind === "lost") return failure("worker_error", job.gasLimit, outcome.why);
  return classify(outcome.reply, job.gasLimit);
}

function failure(cause: WasmFailureCause, gasUsed: number, detail: string): WasmPredicateResult {
  return { valid: false, gas_used: gasUsed, errors: [`${cause}: ${detail}`], cause };
}

function classify(reply: WorkerReply, limit: number): WasmPredicateResult {
  // Gas is charged before a block runs, so a negative remainder means the budget ran out.
  const gasUsed = reply.remaining < 0n ? limit : limit - Number(reply.remaining);
  if (reply.status === "trapped") {
    if (reply.remaining < 0n) return failure("out_of_gas", gasUsed, `gas limit ${limit} exhausted`);
    if (reply.depth > MAX_STACK_SLOTS) return failure("trap", gasUsed, "call depth limit exceeded");
    return failure("trap", gasUsed, reply.message);
  }
  if (reply.status === "bad_output") return failure("bad_output", gasUsed, reply.message);
  const out = readPredicateOutput(reply.output);
  if (!out.ok) return failure("bad_output", gasUsed, out.error);
  return { valid: out.valid, gas_used: gasUsed, errors: out.errors };
}
