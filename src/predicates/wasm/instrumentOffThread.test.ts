import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { compilePredicate, INLINE_BYTES } from "./compilePredicate.js";
import { abiModuleWat, compileWat } from "./compileWat.js";
import { instrumentModule } from "./instrumentModule.js";
import { instrumentOffThread } from "./instrumentOffThread.js";
import { type WasmPredicateInput, WasmPredicateRunner } from "./WasmPredicateRunner.js";

/** `module` with a custom section appended that makes it `size` bytes longer (custom sections never run). */
function padded(module: Uint8Array, size: number): Uint8Array {
  // Section id 0, a 3-byte LEB of the payload length, then the payload: the name "x" and filler.
  const n = size - 4;
  const header = [0x00, (n & 0x7f) | 0x80, ((n >> 7) & 0x7f) | 0x80, (n >> 14) & 0x7f, 0x01, 0x78];
  return Buffer.concat([module, Buffer.from(header), Buffer.alloc(n - 2)]);
}

const input = (args: unknown[]): WasmPredicateInput => ({
  args,
  contract_id: "c",
  commit: { hash: "ab".repeat(32), parent: null, data: [], labels: [], signers: [], timestamp: 0 },
  state: {},
});

test("a module past the inline size is instrumented in a worker thread, to the same bytes and refusals", async () => {
  const small = await compileWat(
    readFileSync(new URL("../../../test/fixtures/wasm/predicate.wat", import.meta.url), "utf8"),
  );
  const big = padded(small, 2 * INLINE_BYTES);
  assert.ok(big.length > INLINE_BYTES);
  const off = await instrumentOffThread(big, 256);
  assert.ok(off.ok);
  assert.deepEqual(Buffer.from(off.bytes), Buffer.from(instrumentModule(big, 256)));

  const runner = new WasmPredicateRunner({ workers: 1 });
  try {
    for (const args of [["ok"], ["no"]]) {
      const a = await runner.evaluate(small, input(args));
      const b = await runner.evaluate(big, input(args));
      assert.deepEqual(b, a);
    }
    const float = await compileWat(abiModuleWat("(i32.trunc_f64_s (f64.const 1))"));
    const [inline, offThread] = await Promise.all([
      compilePredicate(float, 256),
      compilePredicate(padded(float, 2 * INLINE_BYTES), 256),
    ]);
    assert.equal(inline.ok, false);
    assert.deepEqual(offThread, inline);
    assert.match(offThread.ok ? "" : offThread.error, /^floating point: /);
  } finally {
    await runner.close();
  }
});
