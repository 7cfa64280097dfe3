/**
 * The engine's `WasmRunner` over the metered `WasmPredicateRunner` (docs/language.md,
 * docs/predicates-wasm.md). The engine builds the predicate input from Maps and operation
 * objects whose key order depends on how the state was built (incremental appends, a
 * replay, a store load); gas is metered per instruction, so a module that scans its input
 * would see different bytes and burn different gas for the same facts. The adapter
 * therefore rebuilds every object of the input with its keys in canonical order (sorted
 * by UTF-16 code units, as RFC 8785 does), so the same facts always give the same bytes
 * and the same gas. (The runner fixes the top-level key order itself. JavaScript objects
 * list integer-like keys first, in numeric order, so for such keys the order is
 * deterministic but not exactly JCS.) predicateInputBytes.ts serialises it, the state once per
 * commit and in slices.
 */
import type { PredicateResult, WasmRunner } from "../contract/EngineContext.js";
import { predicateInputBytes, sortKeysDeep } from "./predicateInputBytes.js";
import { type WasmPredicateInput, type WasmPredicateOptions, WasmPredicateRunner } from "./wasm/WasmPredicateRunner.js";

export { sortKeysDeep };

export interface WasmRunnerOptions extends WasmPredicateOptions {
  /** The metered runner to use (default: a new pool of `workers` threads). */
  runner?: WasmPredicateRunner;
  /** Worker threads of a new pool (default: one per core). */
  workers?: number;
}

/** A `WasmRunner` with its runner, so the caller can stop the worker. */
export interface ClosableWasmRunner extends WasmRunner {
  close(): Promise<void>;
}

/**
 * Makes the engine's custom-predicate hook: each call evaluates the module on the input in
 * canonical key order under the given limits and returns `{valid, gas_used, errors}`;
 * module faults (out of gas, trap, bad output, timeout) are `valid: false` with an error
 * naming the cause and the cause itself (the engine treats `timeout` and `worker_error`
 * apart: step.ts), never exceptions.
 */
export function createWasmRunner(opts: WasmRunnerOptions = {}): ClosableWasmRunner {
  const { runner: given, workers, ...limits } = opts;
  const runner = given ?? new WasmPredicateRunner(workers === undefined ? {} : { workers });
  const run = async (moduleBytes: Uint8Array, input: unknown, moduleDigest?: string): Promise<PredicateResult> => {
    const bytes = await predicateInputBytes(input as WasmPredicateInput);
    const result = await runner.evaluateBytes(moduleBytes, bytes, limits, moduleDigest);
    const { valid, gas_used, errors, cause } = result;
    return cause === undefined ? { valid, gas_used, errors } : { valid, gas_used, errors, cause };
  };
  return Object.assign(run, { close: () => runner.close() });
}

let local: ClosableWasmRunner | undefined;

/**
 * The process-wide runner of the command-line tools (working-copy commits and pulls,
 * `verify`, `predicate test`), with the hub's default limits, so a commit validated
 * locally meets the same gas as on a hub left at its defaults. Its threads start on first
 * use and never keep the process alive.
 */
export function localWasmRunner(): ClosableWasmRunner {
  local ??= createWasmRunner();
  return local;
}
