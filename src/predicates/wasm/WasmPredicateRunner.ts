import { Worker } from "node:worker_threads";
import { compilePredicate } from "./compilePredicate.js";
import { MAX_STACK_SLOTS } from "./instrumentModule.js";
import { readPredicateOutput } from "./readPredicateOutput.js";
import type { WasmModuleHandle } from "./wasmApi.js";

/** Why a custom predicate failed without the module itself deciding so. */
export type WasmFailureCause = "invalid_module" | "out_of_gas" | "trap" | "bad_output" | "timeout" | "worker_error";

/** The JSON document a predicate receives (serialised in exactly this key order). */
export interface WasmPredicateInput {
  args: unknown[];
  contract_id: string;
  commit: {
    hash: string;
    parent: string | null;
    data: unknown;
    labels: string[];
    signers: string[];
    timestamp: number | string;
  };
  state: unknown;
}

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

/** Outcome of a predicate: `cause` is set when the host, not the module, decided `valid: false`. */
export interface WasmPredicateResult {
  valid: boolean;
  gas_used: number;
  errors: string[];
  cause?: WasmFailureCause;
}

export const DEFAULT_GAS_LIMIT = 10_000_000;
export const DEFAULT_MAX_MEMORY_PAGES = 256;
export const DEFAULT_TIMEOUT_MS = 1000;
export const DEFAULT_MAX_OUTPUT_BYTES = 65_536;

type Reply =
  | { id: number; status: "returned"; remaining: bigint; output: Uint8Array }
  | { id: number; status: "trapped"; remaining: bigint; depth: number; message: string }
  | { id: number; status: "bad_output"; remaining: bigint; message: string };

interface Job {
  module: WasmModuleHandle;
  input: Uint8Array;
  gasLimit: number;
  timeoutMs: number;
  maxOutputBytes: number;
  resolve: (r: WasmPredicateResult) => void;
}

const WORKER_URL = new URL("./predicateWorker.js", import.meta.url);
// Twice the call-depth budget of native stack, so the budget (not V8's limit) stops recursion.
const STACK_MB = Math.ceil((MAX_STACK_SLOTS * 8 * 2) / 2 ** 20);

/**
 * Runs metered predicates one at a time in a long-lived worker thread. A job past its
 * wall-clock timeout gets the worker terminated (which stops even a gas-free infinite
 * loop) and a fresh worker is spawned for the next job. The worker is unref'd while idle,
 * so a runner never keeps the process alive.
 */
export class WasmPredicateRunner {
  private worker: Worker | undefined;
  private online: Promise<void> | undefined;
  private readonly queue: Job[] = [];
  private current: { job: Job; id: number; timer: NodeJS.Timeout | undefined } | undefined;
  private nextId = 1;

  /** Evaluates a predicate module on one input; never rejects for module faults. */
  async evaluate(
    moduleBytes: Uint8Array,
    input: WasmPredicateInput,
    opts: WasmPredicateOptions = {},
  ): Promise<WasmPredicateResult> {
    const gasLimit = opts.gasLimit ?? DEFAULT_GAS_LIMIT;
    if (!Number.isSafeInteger(gasLimit) || gasLimit < 0)
      throw new RangeError(`gasLimit must be a safe non-negative integer`);
    const compiled = await compilePredicate(moduleBytes, opts.maxMemoryPages ?? DEFAULT_MAX_MEMORY_PAGES);
    if (!compiled.ok) return failure("invalid_module", 0, compiled.error);
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
    return new Promise((resolve) => {
      this.queue.push({
        module: compiled.module,
        input: new TextEncoder().encode(json),
        gasLimit,
        timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        maxOutputBytes: opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
        resolve,
      });
      void this.pump();
    });
  }

  /** Stops the worker; queued jobs still run on a fresh one if evaluate is called again. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    this.online = undefined;
    if (w) await w.terminate();
  }

  private spawn(): Promise<void> {
    const worker = new Worker(WORKER_URL, {
      // The entry is plain JavaScript: skip the parent's loaders (tsx) for a faster start.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16, stackSizeMb: STACK_MB },
    });
    worker.unref();
    this.worker = worker;
    worker.on("message", (reply: Reply) => this.finish(reply.id, classify(reply, this.current?.job)));
    const lost = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.online = undefined;
      if (this.current) this.finish(this.current.id, failure("worker_error", this.current.job.gasLimit, why));
    };
    worker.on("error", (e) => lost(e.message));
    worker.on("exit", (code) => lost(`worker exited with code ${code}`));
    return new Promise((resolve) => worker.once("online", () => resolve()));
  }

  private async pump(): Promise<void> {
    if (this.current || this.queue.length === 0) return;
    const job = this.queue.shift()!;
    const id = this.nextId++;
    this.current = { job, id, timer: undefined };
    if (!this.worker) this.online = this.spawn();
    const worker = this.worker!;
    await this.online;
    if (this.current?.id !== id || this.worker !== worker) return; // lost while starting
    // The clock starts once the worker is up, so spawning (tens of ms) never eats a job's budget.
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

  private timeOut(id: number): void {
    if (this.current?.id !== id) return;
    const job = this.current.job;
    const worker = this.worker;
    this.worker = undefined;
    this.online = undefined;
    void worker?.terminate();
    this.finish(id, failure("timeout", job.gasLimit, `wall-clock limit of ${job.timeoutMs} ms exceeded`));
  }

  private finish(id: number, result: WasmPredicateResult): void {
    if (this.current?.id !== id) return;
    clearTimeout(this.current.timer);
    this.current.job.resolve(result);
    this.current = undefined;
    this.worker?.unref();
    void this.pump();
  }
}

function failure(cause: WasmFailureCause, gasUsed: number, detail: string): WasmPredicateResult {
  return { valid: false, gas_used: gasUsed, errors: [`${cause}: ${detail}`], cause };
}

function classify(reply: Reply, job: Job | undefined): WasmPredicateResult {
  const limit = job?.gasLimit ?? 0;
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
