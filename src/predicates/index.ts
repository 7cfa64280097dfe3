/**
 * Custom WASM predicates for library users (`contract-hub/predicates`): the runner the
 * engine's `EngineContext.wasm` takes, so a log pulled from a hub can be checked locally
 * with its custom predicates, as the command line's `verify`, `clone` and `pull` do
 * (docs/engine.md). A separate entry because the engine (`contract-hub/engine`) is pure and
 * runs in the browser, while this starts worker threads.
 */
import { type ClosableWasmRunner, createWasmRunner as meteredRunner } from "./wasmRunner.js";

export type { PredicateResult, WasmRunner } from "../contract/EngineContext.js";
export type { ClosableWasmRunner };

/** What a user may choose; every other limit is the command line's and the hub's (docs/predicates-wasm.md). */
export interface WasmRunnerOptions {
  /** Worker threads that evaluate predicates (default: one per core), as a hub's `--wasm-workers`. */
  workers?: number;
  /**
   * Gas budget of one evaluation (default 10,000,000, the hub's and the command line's).
   * Set it to a hub's `--wasm-gas-limit` when that hub was started with another, or its
   * log may be decided differently here.
   */
  gasLimit?: number;
}

const OPTIONS = new Set(["workers", "gasLimit"]);

/**
 * A runner of custom predicates for `EngineContext.wasm`, with the limits of the command
 * line's `verify` (logs pulled from a hub are untrusted): each evaluation is metered by gas,
 * its memory capped at 256 pages (16 MiB), its thread ended past a 1 s wall-clock backstop,
 * its module refused past 10,000 functions, and it runs in a worker thread, never on the
 * caller's event loop. Its threads start on first use and do not keep the process alive
 * while idle; `close()` ends them (a later evaluation starts fresh ones).
 */
export function createWasmRunner(options: WasmRunnerOptions = {}): ClosableWasmRunner {
  // Only these two: the other limits are what makes a hostile module harmless, and a
  // looser one here would let a log pass that the hub refuses (or the reverse).
  for (const key of Object.keys(options))
    if (!OPTIONS.has(key)) throw new TypeError(`createWasmRunner: unknown option ${key} (workers, gasLimit)`);
  const { workers, gasLimit } = options;
  if (gasLimit !== undefined && (!Number.isSafeInteger(gasLimit) || gasLimit < 1))
    throw new RangeError("createWasmRunner: gasLimit must be a positive integer");
  if (workers !== undefined && (!Number.isSafeInteger(workers) || workers < 1))
    throw new RangeError("createWasmRunner: workers must be a positive integer");
  return meteredRunner({
    ...(workers !== undefined ? { workers } : {}),
    ...(gasLimit !== undefined ? { gasLimit } : {}),
  });
}
