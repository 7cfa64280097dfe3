/**
 * The custom WASM predicate interface (docs/predicates-wasm.md): what a module receives,
 * what it writes back, and what the host makes of it. Shared by the runner and the SDK.
 */

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

/** The JSON document a predicate writes back: `errors` says why when `valid` is false. */
export interface WasmPredicateOutput {
  valid: boolean;
  errors?: string[];
}

/** Outcome of a predicate: `cause` is set when the host, not the module, decided `valid: false`. */
export interface WasmPredicateResult {
  valid: boolean;
  gas_used: number;
  errors: string[];
  cause?: WasmFailureCause;
}
