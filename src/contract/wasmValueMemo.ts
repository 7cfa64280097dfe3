/**
 * The outcome of checking each of the last few thousand big `.wasm` values. `WebAssembly.validate`
 * reads every instruction: tens of milliseconds a MB of module, so a push of an 11 MB module
 * held the event loop for most of a second. The hub checks a big value once, on its worker
 * pool, before the commit's shape check, and remembers the outcome here; the shape check
 * (pathTypes.ts) then finds it. Small values are checked each time (a millisecond or less,
 * cheaper than the hop to a worker).
 *
 * Outcomes are keyed by the SHA-256 of the value, not by the value: a Map keyed by strings of
 * several MB hashes them by length alone, so values of one length, alike up to their last
 * characters, made each lookup compare megabytes with every one of them. The digest is of
 * the value's UTF-8 bytes. Two different strings with the same bytes both hold an unpaired
 * surrogate (written as U+FFFD), so neither is base64 and both are `not_base64`: a digest
 * never stands for a value with another outcome.
 */
import { createHash } from "node:crypto";

/**
 * A `.wasm` value is padded base64 (this, with a length that is a multiple of 4) of a module
 * WebAssembly validates. (A regex of repeated 4-character groups recursed once per group and
 * overflowed the stack on values of a few MB.)
 */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** What checking a `.wasm` value found: not base64 at all, base64 of bytes that do not validate, or a module. */
export type WasmValueOutcome = "not_base64" | "invalid" | "valid";

/**
 * Values at least this long (base64 characters, a 48 KiB module) are remembered, and the hub
 * checks them on its pool: validating one costs about a millisecond, as much as the hop.
 */
export const WASM_MEMO_MIN_CHARS = 64 * 1024;
/**
 * Outcomes kept, least recently used out (a digest and a word each, under 1 MiB in all): the
 * big values of sixteen pushes of 16 MiB, so other requests' values do not push out those
 * of a request between its check on the pool and its shape check. Kept past the request, an
 * outcome also spares a later check of the same value in this process the validation. (The
 * hub's replays of its own store do not validate `.wasm` values: ShapeContext.stored.)
 */
const KEPT = 4096;

// The project's lib (ES2023, no DOM) does not declare the WebAssembly global.
const wasmValidate = (globalThis as unknown as { WebAssembly: { validate(bytes: Uint8Array): boolean } }).WebAssembly
  .validate;

const memo = new Map<string, WasmValueOutcome>();

/** Checks `value` as a `.wasm` value, every time. */
export function checkWasmValue(value: unknown): WasmValueOutcome {
  if (typeof value !== "string" || value.length % 4 !== 0 || !BASE64.test(value)) return "not_base64";
  return wasmValidate(Buffer.from(value, "base64")) ? "valid" : "invalid";
}

/** The key `value`'s outcome is remembered under. */
export function wasmValueKey(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("base64");
}

/** Checks `value` and names its key (what the hub's pool runs; the answer goes to `rememberWasmValue`). */
export function keyedWasmValueCheck(value: string): { key: string; outcome: WasmValueOutcome } {
  return { key: wasmValueKey(value), outcome: checkWasmValue(value) };
}

/** `checkWasmValue` through the memo: a big value checked already costs its digest. */
export function wasmValueOutcome(value: unknown): WasmValueOutcome {
  if (typeof value !== "string" || value.length < WASM_MEMO_MIN_CHARS) return checkWasmValue(value);
  const key = wasmValueKey(value);
  const known = memo.get(key);
  if (known !== undefined) return known;
  const outcome = checkWasmValue(value);
  rememberWasmValue({ key, outcome });
  return outcome;
}

/** Remembers an answer of `keyedWasmValueCheck` run elsewhere (the hub's worker pool); only such answers may come here. */
export function rememberWasmValue(checked: { key: string; outcome: WasmValueOutcome }): void {
  memo.delete(checked.key);
  memo.set(checked.key, checked.outcome);
  if (memo.size > KEPT) memo.delete(memo.keys().next().value!);
}

/** Whether the outcome of `value` is remembered (tests). */
export function isWasmValueRemembered(value: string): boolean {
  return memo.has(wasmValueKey(value));
}
