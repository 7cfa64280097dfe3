import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { after, test } from "node:test";
import { manyFunctions } from "../../../test/support/manyFunctions.js";
import { abiModuleWat, compileWat } from "./compileWat.js";
import { evaluateWasmPredicate } from "./evaluateWasmPredicate.js";
import { MAX_FUNCTIONS } from "./parseModule.js";
import { type WasmPredicateInput, WasmPredicateRunner } from "./WasmPredicateRunner.js";

const fixture = (name: string) =>
  compileWat(readFileSync(new URL(`../../../test/fixtures/wasm/${name}.wat`, import.meta.url), "utf8"));

function input(args: unknown[]): WasmPredicateInput {
  return {
    args,
    contract_id: "c-123",
    commit: {
      hash: "ab".repeat(32),
      parent: null,
      data: { x: 1 },
      labels: ["+PAY"],
      signers: [],
      timestamp: 1700000000,
    },
    state: { "/a.num": 3 },
  };
}

/** evaluate returns a pointer to `output` placed at offset 512 by a data segment. */
function returning(output: string): string {
  return abiModuleWat("(i32.const 512)", `(data (i32.const 512) "${output}")`);
}

const runner = new WasmPredicateRunner();
after(() => runner.close());

test("a predicate that reads its args holds, and fails with its own errors otherwise", async () => {
  const bytes = await fixture("predicate");
  const yes = await evaluateWasmPredicate(bytes, input(["ok"]));
  assert.equal(yes.valid, true);
  assert.deepEqual(yes.errors, []);
  assert.equal(yes.cause, undefined);
  assert.ok(yes.gas_used > 0);
  const no = await evaluateWasmPredicate(bytes, input(["nope"]));
  assert.equal(no.valid, false);
  assert.deepEqual(no.errors, ["arg is not ok"]);
  assert.equal(no.cause, undefined);
});

test("the same module and input always use the same gas, across runners and worker restarts", async () => {
  const bytes = await fixture("predicate");
  const a = await runner.evaluate(bytes, input(["nope", 1, 2]));
  await runner.close();
  const b = await runner.evaluate(bytes, input(["nope", 1, 2]));
  const c = await evaluateWasmPredicate(bytes, input(["nope", 1, 2]));
  assert.equal(a.gas_used, b.gas_used);
  assert.equal(a.gas_used, c.gas_used);
  const longer = await runner.evaluate(bytes, input(["nope", 1, 2, 3]));
  assert.ok(longer.gas_used > a.gas_used); // the search scans the longer input
});

test("an infinite loop runs out of gas, well inside the wall-clock backstop", async () => {
  const bytes = await fixture("loop");
  const start = performance.now();
  const r = await runner.evaluate(bytes, input([]), { timeoutMs: 5000 });
  assert.equal(r.cause, "out_of_gas");
  assert.equal(r.valid, false);
  assert.equal(r.gas_used, 10_000_000);
  assert.match(r.errors[0]!, /^out_of_gas: /);
  assert.ok(performance.now() - start < 5000);
  const small = await runner.evaluate(bytes, input([]), { gasLimit: 1000 });
  assert.equal(small.cause, "out_of_gas");
  assert.equal(small.gas_used, 1000);
});

test("the wall-clock backstop terminates the worker, and the next evaluation gets a fresh one", async () => {
  const loop = await fixture("loop");
  const start = performance.now();
  const r = await runner.evaluate(loop, input([]), { gasLimit: 2 ** 52, timeoutMs: 150 });
  assert.equal(r.cause, "timeout");
  assert.equal(r.valid, false);
  assert.match(r.errors[0]!, /^timeout: /);
  assert.ok(performance.now() - start < 2000);
  const next = await runner.evaluate(await fixture("predicate"), input(["ok"]));
  assert.equal(next.valid, true);
});

test("traps: unreachable, division by zero, env.abort and unbounded recursion", async () => {
  const unreachable = await runner.evaluate(await compileWat(abiModuleWat("(unreachable)")), input([]));
  assert.equal(unreachable.cause, "trap");
  assert.match(unreachable.errors[0]!, /^trap: /);
  const div = await runner.evaluate(
    await compileWat(abiModuleWat("(i32.div_s (i32.const 1) (i32.const 0))")),
    input([]),
  );
  assert.equal(div.cause, "trap");
  const abort = await runner.evaluate(
    await compileWat(
      abiModuleWat(
        "(call $abort (i32.const 0) (i32.const 0) (i32.const 7) (i32.const 9)) (i32.const 0)",
        `(import "env" "abort" (func $abort (param i32 i32 i32 i32)))`,
      ),
    ),
    input([]),
  );
  assert.equal(abort.cause, "trap");
  const recurse = await fixture("recurse");
  const r1 = await runner.evaluate(recurse, input([]));
  const r2 = await runner.evaluate(recurse, input([]));
  assert.equal(r1.cause, "trap");
  assert.match(r1.errors[0]!, /^trap: call depth/);
  assert.equal(r1.gas_used, r2.gas_used);
});

test("bad output: pointers and lengths out of bounds, bad UTF-8 or JSON, no boolean valid", async () => {
  const cases: [string, string][] = [
    ["bad pointer", abiModuleWat("(i32.const -16)")],
    ["pointer at the last bytes", abiModuleWat("(i32.const 65534)")],
    ["length past the end", returning("\\ff\\ff\\00\\00{}")],
    ["length over the output limit", returning("\\00\\00\\10\\00{}")],
    ["invalid UTF-8", returning("\\03\\00\\00\\00\\ff\\fe\\fd")],
    ["not JSON", returning("\\06\\00\\00\\00{valid")],
    ["no valid", returning('\\0b\\00\\00\\00{\\"ok\\":true}')],
    ["valid not boolean", returning('\\0b\\00\\00\\00{\\"valid\\":1}')],
    ["errors not strings", returning('\\1c\\00\\00\\00{\\"valid\\":false,\\"errors\\":[1]}')],
    ["array", returning("\\02\\00\\00\\00[]")],
  ];
  for (const [name, wat] of cases) {
    const r = await runner.evaluate(await compileWat(wat), input([]));
    assert.equal(r.cause, "bad_output", name);
    assert.equal(r.valid, false, name);
    assert.match(r.errors[0]!, /^bad_output: /, name);
  }
  const badAlloc = `(module (memory (export "memory") 1)
    (func (export "alloc") (param i32) (result i32) (i32.const 65530))
    (func (export "evaluate") (param i32 i32) (result i32) (i32.const 0)))`;
  assert.equal((await runner.evaluate(await compileWat(badAlloc), input([]))).cause, "bad_output");
  const good = await runner.evaluate(await compileWat(returning('\\0e\\00\\00\\00{\\"valid\\":true}')), input([]));
  assert.equal(good.valid, true); // the harness itself is sound
});

test("forbidden imports, floats and SIMD are invalid modules that never run", async () => {
  const imported = abiModuleWat("(i32.const 0)", `(import "env" "now" (func (result i32)))`);
  const float = abiModuleWat("(i32.trunc_f64_s (f64.div (f64.const 0) (f64.const 0)))");
  const simd = abiModuleWat("(i32x4.extract_lane 0 (v128.const i32x4 1 2 3 4))");
  for (const wat of [imported, float, simd]) {
    const r = await runner.evaluate(await compileWat(wat, { simd: true }), input([]));
    assert.equal(r.cause, "invalid_module");
    assert.equal(r.valid, false);
    assert.equal(r.gas_used, 0);
    assert.match(r.errors[0]!, /^invalid_module: /);
  }
  const garbage = await runner.evaluate(Uint8Array.from([1, 2, 3]), input([]));
  assert.equal(garbage.cause, "invalid_module");
});

test("memory: growth past the page limit is refused, declaring more is invalid, growth is charged per page", async () => {
  const grow = await fixture("grow");
  const one = await runner.evaluate(grow, input([1]));
  assert.equal(one.valid, true);
  const many = await runner.evaluate(grow, input([9])); // 300 pages
  assert.equal(many.valid, false);
  assert.deepEqual(many.errors, ["grow refused"]);
  assert.ok(many.gas_used - one.gas_used >= 299 * 4096);
  const capped = await runner.evaluate(grow, input([1]), { maxMemoryPages: 1 });
  assert.deepEqual(capped.errors, ["grow refused"]);
  const declared = abiModuleWat("(i32.const 0)").replace(
    '(memory (export "memory") 1)',
    '(memory (export "memory") 257)',
  );
  assert.equal((await runner.evaluate(await compileWat(declared), input([]))).cause, "invalid_module");
});

test("a huge table is an invalid module that never runs (instantiating it would exhaust the worker's heap)", async () => {
  // V8 allocates a declared table up front: 10 million entries overran the worker's heap limit
  // in one allocation, which aborted the whole process, not just the worker.
  const huge = abiModuleWat("(i32.const 0)", "(table 10000000 funcref)");
  const r = await runner.evaluate(await compileWat(huge), input([]));
  assert.equal(r.cause, "invalid_module");
  assert.equal(r.gas_used, 0);
  assert.match(r.errors[0]!, /^invalid_module: table size: /);
  const small = abiModuleWat(
    "(i32.const 512)",
    `(table 65536 funcref) (data (i32.const 512) "\\0e\\00\\00\\00{\\"valid\\":true}")`,
  );
  assert.equal((await runner.evaluate(await compileWat(small), input([]))).valid, true);
});

test("a module defining more than MAX_FUNCTIONS functions is an invalid module that never runs", async () => {
  // Every function is compiled before the module first runs, unmetered: 600,000 functions took
  // 17.8 s and 1.2 GB of the hub's memory.
  const r = await runner.evaluate(manyFunctions(MAX_FUNCTIONS + 1), input([]));
  assert.equal(r.cause, "invalid_module");
  assert.equal(r.gas_used, 0);
  assert.match(r.errors[0]!, /^invalid_module: function count: module defines 10001 functions, the limit is 10000$/);
});

test("a module of many functions gives its own answer on its first evaluation: compiling is not timed", async () => {
  // V8 compiled each function on its first call by default, inside the backstop and unmetered:
  // a module of 300,000 functions timed out cold and held warm. Modules now define at most
  // MAX_FUNCTIONS, and the module here defines that many: the largest a predicate may be gives
  // the same answer cold and warm. (Compiling 10,000 small functions took 40-80 ms on a 2-core
  // machine, far from the backstop: the function limit, not eager compilation alone, is what
  // keeps compiling from deciding the first evaluation now.)
  const bytes = manyFunctions(MAX_FUNCTIONS);
  const fresh = new WasmPredicateRunner({ workers: 1 });
  try {
    const first = await fresh.evaluate(bytes, input([]), { timeoutMs: 1_000 });
    assert.deepEqual(first, { valid: true, gas_used: first.gas_used, errors: [] });
    assert.deepEqual(await fresh.evaluate(bytes, input([]), { timeoutMs: 1_000 }), first);
  } finally {
    await fresh.close();
  }
});

test("a large memory.fill is charged per byte", async () => {
  const fill = await fixture("fill");
  const r = await runner.evaluate(fill, input([]));
  assert.equal(r.valid, true);
  assert.ok(r.gas_used >= 1_000_000);
  const short = await runner.evaluate(fill, input([]), { gasLimit: 500_000 });
  assert.equal(short.cause, "out_of_gas");
});

test("the plain-JS worker also runs when tsx is registered through its API, as bin/contract-hub.js does", () => {
  const script = `
    import { register } from "tsx/esm/api";
    register();
    const { compileWat } = await import("./src/predicates/wasm/compileWat.ts");
    const { evaluateWasmPredicate } = await import("./src/predicates/wasm/evaluateWasmPredicate.ts");
    const { readFileSync } = await import("node:fs");
    const bytes = await compileWat(readFileSync("test/fixtures/wasm/predicate.wat", "utf8"));
    const input = { args: ["ok"], contract_id: "c", commit: { hash: "h", parent: null, data: null, labels: [], signers: [], timestamp: 0 }, state: {} };
    process.stdout.write(JSON.stringify(await evaluateWasmPredicate(bytes, input)));`;
  const cwd = new URL("../../../", import.meta.url);
  const res = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd, encoding: "utf8" });
  assert.equal(res.status, 0, res.stderr);
  assert.equal(JSON.parse(res.stdout).valid, true);
});
