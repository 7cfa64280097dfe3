/**
 * Custom predicate modules for the served-hub tests: a well-behaved one (holds when its
 * first argument is "ok") and one of each hostile kind the hub must survive.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { ContractError } from "../../src/contract/ContractError.js";
import { abiModuleWat, compileWat } from "../../src/predicates/wasm/compileWat.js";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/wasm/${name}`, import.meta.url), "utf8");

export interface PredicateModules {
  /** Holds when the first argument is "ok", else `{valid: false, errors: ["arg is not ok"]}`. */
  okarg: Uint8Array;
  /** Spins forever: out of gas, or the wall-clock backstop when gas is plentiful. */
  loop: Uint8Array;
  /** Grows memory a page at a time until refused at the page cap, then traps. */
  grow: Uint8Array;
  /** Recurses without end: the call-depth budget traps it. */
  recurse: Uint8Array;
  /** Returns a length that runs past the end of memory. */
  bad: Uint8Array;
  /** Executes `unreachable`. */
  trap: Uint8Array;
}

export async function predicateModules(): Promise<PredicateModules> {
  return {
    okarg: await compileWat(fixture("predicate.wat")),
    loop: await compileWat(fixture("loop.wat")),
    recurse: await compileWat(fixture("recurse.wat")),
    grow: await compileWat(
      abiModuleWat(`(loop $more (br_if $more (i32.ne (memory.grow (i32.const 1)) (i32.const -1)))) unreachable`),
    ),
    bad: await compileWat(abiModuleWat(`(i32.store (i32.const 0) (i32.const 0x7fff0000)) (i32.const 0)`)),
    trap: await compileWat(abiModuleWat("unreachable")),
  };
}

/** Base64, as a module is posted at `/_code/custom/<name>.wasm`. */
export const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64");

/** The failed custom property named `property` in a no_transition rejection. */
export function customFailure(err: ContractError, property: string): { errors?: string[]; gas_used?: number } {
  const candidates = (err.details?.candidates ?? []) as { failed: { property: string }[] }[];
  for (const c of candidates) {
    const f = c.failed.find((x) => x.property === property);
    if (f) return f as { errors?: string[]; gas_used?: number };
  }
  assert.fail(`no failed ${property} in ${JSON.stringify(candidates)}`);
}

/** Reads every input byte (so gas grows with the state and the commit), then holds. */
export const SCAN_WAT = abiModuleWat(
  `(local $i i32) (local $sum i32)
   (block $done
     (loop $scan
       (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
       (local.set $sum (i32.add (local.get $sum) (i32.load8_u (i32.add (local.get $ptr) (local.get $i)))))
       (local.set $i (i32.add (local.get $i) (i32.const 1)))
       (br $scan)))
   (i32.const 0)`,
  `(data (i32.const 0) "\\0e\\00\\00\\00{\\"valid\\":true}")`,
);
