import assert from "node:assert/strict";
import { test } from "node:test";
import { manyFunctions } from "../../../test/support/manyFunctions.js";
import { ByteWriter } from "./ByteWriter.js";
import { abiModuleWat as abiModule, compileWat } from "./compileWat.js";
import { InvalidModuleError } from "./InvalidModuleError.js";
import { DEPTH_EXPORT, GAS_EXPORT, instrumentModule } from "./instrumentModule.js";
import { MAX_FUNCTIONS } from "./parseModule.js";
import { wasm } from "./wasmApi.js";

type Features = Parameters<typeof compileWat>[1];

async function rejects(source: string, feature: string, features?: Features): Promise<void> {
  const bytes = await compileWat(source, features);
  assert.throws(
    () => instrumentModule(bytes, 256),
    (e) => {
      assert.ok(e instanceof InvalidModuleError, String(e));
      assert.equal(e.feature, feature);
      return true;
    },
  );
}

test("accepts the ABI with env.abort imported and appends the two reserved exports", async () => {
  const bytes = await compileWat(abiModule("(i32.const 0)", `(import "env" "abort" (func (param i32 i32 i32 i32)))`));
  const out = instrumentModule(bytes, 256);
  const exports = wasm.Module.exports(new wasm.Module(out)).map((e) => `${e.name}:${e.kind}`);
  assert.deepEqual(exports, [
    "memory:memory",
    "alloc:function",
    "evaluate:function",
    `${GAS_EXPORT}:global`,
    `${DEPTH_EXPORT}:global`,
  ]);
});

test("imports other than env.abort (i32,i32,i32,i32)->() are refused", async () => {
  await rejects(abiModule("(i32.const 0)", `(import "env" "log" (func (param i32)))`), "imports");
  await rejects(
    abiModule("(i32.const 0)", `(import "wasi_snapshot_preview1" "proc_exit" (func (param i32)))`),
    "imports",
  );
  await rejects(abiModule("(i32.const 0)", `(import "env" "abort" (func (param i32)))`), "imports");
  await rejects(abiModule("(i32.const 0)", `(import "env" "g" (global i32))`), "imports");
});

test("SIMD is refused in code and in types", async () => {
  await rejects(abiModule("(i32x4.extract_lane 0 (v128.const i32x4 1 2 3 4))"), "SIMD", { simd: true });
  await rejects(abiModule("(local v128) (i32.const 0)"), "SIMD", { simd: true });
});

test("floating point is refused: arithmetic, conversions, saturating truncation and float types", async () => {
  await rejects(abiModule("(i32.trunc_f64_s (f64.add (f64.const 1) (f64.const 2)))"), "floating point");
  await rejects(abiModule("(i32.trunc_sat_f32_s (f32.const 1))"), "floating point", { sat_float_to_int: true });
  await rejects(abiModule("(i32.reinterpret_f32 (f32.load (i32.const 0)))"), "floating point");
  await rejects(abiModule("(local f64) (i32.const 0)"), "floating point");
  await rejects(abiModule("(i32.const 0)", `(func (param f32))`), "floating point");
});

test("threads, exceptions, tail calls, reference types, memory64 and GC are refused by name", async () => {
  await rejects(abiModule("(i32.atomic.load (i32.const 0))"), "threads", { threads: true });
  await rejects(
    `(module (memory (export "memory") 1 1 shared)
      (func (export "alloc") (param i32) (result i32) (i32.const 0))
      (func (export "evaluate") (param i32 i32) (result i32) (i32.const 0)))`,
    "threads",
    { threads: true },
  );
  await rejects(abiModule("(throw $e)", "(tag $e)"), "exceptions", { exceptions: true });
  await rejects(abiModule("(return_call $f)", "(func $f (result i32) (i32.const 1))"), "tail calls", {
    tail_call: true,
  });
  await rejects(abiModule("(ref.is_null (ref.null extern))"), "reference types", { reference_types: true });
  await rejects(abiModule("(i32.const 0)", "(table 1 externref)"), "reference types", { reference_types: true });
  await rejects(
    `(module (memory (export "memory") i64 1)
      (func (export "alloc") (param i32) (result i32) (i32.const 0))
      (func (export "evaluate") (param i32 i32) (result i32) (i32.const 0)))`,
    "memory64",
    { memory64: true },
  );
  // A struct type (form 0x5f) in the type section: wabt 1.0.39 cannot write GC text.
  const gc = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 3, 1, 0x5f, 0]);
  assert.throws(
    () => instrumentModule(gc, 256),
    (e) => e instanceof InvalidModuleError && e.feature === "GC",
  );
});

test("reserved export names and oversized memories are refused", async () => {
  await rejects(abiModule("(i32.const 0)", `(global (export "${GAS_EXPORT}") i32 (i32.const 0))`), "reserved export");
  const mem = (limits: string) => `(module (memory (export "memory") ${limits})
      (func (export "alloc") (param i32) (result i32) (i32.const 0))
      (func (export "evaluate") (param i32 i32) (result i32) (i32.const 0)))`;
  await rejects(mem("257"), "memory pages");
  await rejects(mem("1 300"), "memory pages");
  await rejects(abiModule("(i32.const 0)", "(table 65537 funcref)"), "table size");
  instrumentModule(await compileWat(mem("256")), 256);
  assert.throws(
    () => instrumentModule(new Uint8Array(0), 256),
    (e) => e instanceof InvalidModuleError && e.feature === "malformed",
  );
});

test("a module defining more than MAX_FUNCTIONS functions is refused before its bodies are read", () => {
  const isFunctionCount = (e: unknown) => e instanceof InvalidModuleError && e.feature === "function count";
  assert.throws(() => instrumentModule(manyFunctions(MAX_FUNCTIONS + 1), 256), isFunctionCount);
  instrumentModule(manyFunctions(MAX_FUNCTIONS), 256);
  // A code section's own count is checked too, before any body is decoded (here there are none).
  const count = new ByteWriter().u32(MAX_FUNCTIONS + 1).toBytes();
  const codeOnly = new ByteWriter().bytes(Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 10]));
  assert.throws(() => instrumentModule(codeOnly.u32(count.length).bytes(count).toBytes(), 256), isFunctionCount);
});

test("the page limit is configurable and an undeclared maximum becomes the limit", async () => {
  const bytes = await compileWat(abiModule("(memory.grow (i32.const 1))"));
  assert.throws(
    () => instrumentModule(bytes, 0),
    (e) => e instanceof InvalidModuleError && e.feature === "memory pages",
  );
  const instance = new wasm.Instance(new wasm.Module(instrumentModule(bytes, 2)), {});
  const ex = instance.exports as { evaluate(p: number, l: number): number; [k: string]: unknown };
  (ex[GAS_EXPORT] as { value: bigint }).value = 1_000_000n;
  assert.equal(ex.evaluate(0, 0), 1); // 1 → 2 pages
  assert.equal(ex.evaluate(0, 0), -1); // 2 → 3 refused
});

test("an invalid module is refused even when instrumenting would make it valid", () => {
  // evaluate writes global 0, which the module does not have: the gas global the instrumenter
  // appends would get that index, and the module could refill its own budget.
  const w = new ByteWriter();
  const section = (id: number, p: ByteWriter) => w.u8(id).u32(p.toBytes().length).bytes(p.toBytes());
  w.bytes(Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  section(1, new ByteWriter().u32(2).bytes(Uint8Array.from([0x60, 1, 0x7f, 1, 0x7f, 0x60, 2, 0x7f, 0x7f, 1, 0x7f])));
  section(3, new ByteWriter().u32(2).u32(0).u32(1));
  section(5, new ByteWriter().u32(1).u8(0).u32(1));
  section(
    7,
    new ByteWriter().u32(3).name("memory").u8(2).u32(0).name("alloc").u8(0).u32(0).name("evaluate").u8(0).u32(1),
  );
  const code = new ByteWriter().u32(2);
  const alloc = new ByteWriter().u32(0).u8(0x41).u32(0).u8(0x0b);
  const evaluate = new ByteWriter().u32(0).u8(0x42).signed(1_000_000_000_000).u8(0x24).u32(0).u8(0x41).u32(0).u8(0x0b);
  for (const b of [alloc, evaluate]) code.u32(b.toBytes().length).bytes(b.toBytes());
  section(10, code);
  const bytes = w.toBytes();
  assert.equal(wasm.validate(bytes), false);
  assert.throws(
    () => instrumentModule(bytes, 256),
    (e) => e instanceof InvalidModuleError && e.feature === "invalid",
  );
});

test("missing or mistyped ABI exports are refused", async () => {
  await rejects(
    `(module (memory (export "memory") 1) (func (export "evaluate") (param i32 i32) (result i32) (i32.const 0)))`,
    "exports",
  );
  await rejects(
    `(module (memory 1) (func (export "alloc") (param i32) (result i32) (i32.const 0))
      (func (export "evaluate") (param i32 i32) (result i32) (i32.const 0)))`,
    "exports",
  );
  await rejects(
    `(module (memory (export "memory") 1) (func (export "alloc") (param i32) (result i32) (i32.const 0))
      (func (export "evaluate") (param i32) (result i32) (i32.const 0)))`,
    "exports",
  );
});

/** Gas `evaluate(0, len)` uses in the instrumented module (run in this thread). */
async function gasFor(body: string, len: number, locals = ""): Promise<bigint> {
  const bytes = instrumentModule(await compileWat(abiModule(`${locals} ${body}`)), 256);
  const instance = new wasm.Instance(new wasm.Module(bytes), {});
  const gas = instance.exports[GAS_EXPORT] as { value: bigint };
  gas.value = 1_000_000_000n;
  (instance.exports.evaluate as (p: number, l: number) => number)(0, len);
  return 1_000_000_000n - gas.value;
}

test("exact charges: the fall-through after br_if, each loop iteration, per byte and per page", async () => {
  // Skipped by the branch: i32.const, drop, i32.const, drop = 4 gas.
  const skip = "(block $b (br_if $b (local.get $len)) (drop (i32.const 1)) (drop (i32.const 2))) (i32.const 0)";
  assert.equal((await gasFor(skip, 0)) - (await gasFor(skip, 1)), 4n);
  // One iteration: local.get, i32.const, i32.add, local.tee, local.get, i32.lt_u, br_if = 7 gas.
  const loop = `(loop $l (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $len))))
    (i32.const 0)`;
  assert.equal((await gasFor(loop, 11, "(local $i i32)")) - (await gasFor(loop, 1, "(local $i i32)")), 70n);
  const fill = "(memory.fill (i32.const 0) (i32.const 1) (local.get $len)) (i32.const 0)";
  assert.equal((await gasFor(fill, 1000)) - (await gasFor(fill, 0)), 1000n);
  const copy = "(memory.copy (i32.const 0) (i32.const 100) (local.get $len)) (i32.const 0)";
  assert.equal((await gasFor(copy, 300)) - (await gasFor(copy, 0)), 300n);
  const grow = "(memory.grow (local.get $len))";
  assert.equal((await gasFor(grow, 3)) - (await gasFor(grow, 1)), 2n * 4096n);
  // Each arm is charged for what it runs: then = const, const, add, drop (4); else = const, drop (2).
  const branch =
    "(if (local.get $len) (then (drop (i32.add (i32.const 1) (i32.const 2)))) (else (drop (i32.const 3)))) (i32.const 0)";
  assert.equal((await gasFor(branch, 1)) - (await gasFor(branch, 0)), 2n);
});
