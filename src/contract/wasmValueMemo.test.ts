import assert from "node:assert/strict";
import { test } from "node:test";
import { assertContractError } from "./assertContractError.js";
import { checkValueForPath } from "./pathTypes.js";
import {
  checkWasmValue,
  isWasmValueRemembered,
  keyedWasmValueCheck,
  rememberWasmValue,
  WASM_MEMO_MIN_CHARS,
  wasmValueKey,
  wasmValueOutcome,
} from "./wasmValueMemo.js";

/** An empty module with a custom section making its base64 `chars` characters or more. */
function moduleOf(chars: number): Uint8Array {
  const size = Math.ceil((chars * 3) / 4);
  const payload = Buffer.concat([Buffer.from([1, 0x78]), Buffer.alloc(size)]);
  const len = Buffer.from([
    0x80 | (payload.length & 0x7f),
    0x80 | ((payload.length >> 7) & 0x7f),
    payload.length >> 14,
  ]);
  return Buffer.concat([Buffer.from("0061736d01000000", "hex"), Buffer.from([0]), len, payload]);
}

test("checkWasmValue: not base64, base64 of bytes WebAssembly refuses, a module", () => {
  assert.equal(checkWasmValue(7), "not_base64");
  assert.equal(checkWasmValue("abc"), "not_base64");
  assert.equal(checkWasmValue(Buffer.from("0061736d02000000", "hex").toString("base64")), "invalid");
  assert.equal(checkWasmValue(Buffer.from(moduleOf(100)).toString("base64")), "valid");
});

test("a big value is checked once: the shape check finds the outcome the pool remembered", () => {
  const value = Buffer.from(moduleOf(WASM_MEMO_MIN_CHARS)).toString("base64");
  assert.ok(value.length >= WASM_MEMO_MIN_CHARS);
  assert.equal(isWasmValueRemembered(value), false);
  // What the hub's pool does: the same check elsewhere, its answer remembered.
  rememberWasmValue(keyedWasmValueCheck(value));
  assert.equal(isWasmValueRemembered(value), true);
  assert.equal(wasmValueOutcome(value), "valid");
  checkValueForPath("/p.wasm", value);

  const invalid = Buffer.concat([moduleOf(WASM_MEMO_MIN_CHARS), Buffer.from([0xff])]).toString("base64");
  rememberWasmValue(keyedWasmValueCheck(invalid));
  const d = assertContractError(() => checkValueForPath("/p.wasm", invalid), "VALIDATION_FAILED", "wasm_invalid");
  assert.deepEqual(d, { reason: "wasm_invalid", path: "/p.wasm", extension: ".wasm" });

  // A big value nobody checked before is checked inline, and remembered for the next check.
  const fresh = Buffer.from(moduleOf(WASM_MEMO_MIN_CHARS + 400)).toString("base64");
  assert.equal(wasmValueOutcome(fresh), "valid");
  assert.equal(isWasmValueRemembered(fresh), true);
});

test("small values are checked every time: the memo is not asked", () => {
  const small = Buffer.from("0061736d02000000", "hex").toString("base64");
  rememberWasmValue({ key: wasmValueKey(small), outcome: "valid" });
  assertContractError(() => checkValueForPath("/p.wasm", small), "VALIDATION_FAILED", "wasm_invalid");
});

test("values of one length that differ only at their end are remembered apart", () => {
  const base = Buffer.from(moduleOf(WASM_MEMO_MIN_CHARS * 4));
  const values = [0, 1, 2].map((i) => {
    const bytes = Buffer.from(base);
    bytes[bytes.length - 1] = i;
    return bytes.toString("base64");
  });
  values.push(Buffer.concat([base.subarray(0, -1), Buffer.from([0xff])]).toString("base64"));
  for (const v of values) rememberWasmValue(keyedWasmValueCheck(v));
  assert.deepEqual(
    values.map((v) => wasmValueOutcome(v)),
    ["valid", "valid", "valid", "valid"],
  );
  const invalid = Buffer.concat([base, Buffer.from([0xff])]).toString("base64");
  assert.equal(wasmValueOutcome(invalid), "invalid");
});
