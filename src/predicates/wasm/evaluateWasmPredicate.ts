import {
  type WasmPredicateInput,
  type WasmPredicateOptions,
  type WasmPredicateResult,
  WasmPredicateRunner,
} from "./WasmPredicateRunner.js";

let shared: WasmPredicateRunner | undefined;

/**
 * Runs a custom predicate module (docs/language.md ABI) on one input in the process-wide
 * metered worker. Faults become `valid: false` with `cause` and an error prefixed by it.
 */
export function evaluateWasmPredicate(
  moduleBytes: Uint8Array,
  input: WasmPredicateInput,
  opts: WasmPredicateOptions = {},
): Promise<WasmPredicateResult> {
  shared ??= new WasmPredicateRunner();
  return shared.evaluate(moduleBytes, input, opts);
}
