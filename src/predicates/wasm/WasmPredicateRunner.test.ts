import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { compileWat } from "./compileWat.js";
import { type WasmPredicateInput, WasmPredicateRunner } from "./WasmPredicateRunner.js";

const fixture = (name: string) =>
  compileWat(readFileSync(new URL(`../../../test/fixtures/wasm/${name}.wat`, import.meta.url), "utf8"));

const input = (arg: string): WasmPredicateInput => ({
  args: [arg],
  contract_id: "c",
  commit: { hash: "00".repeat(32), parent: null, data: [], labels: [], signers: [], timestamp: 0 },
  state: {},
});

test("a pool of two threads finishes quick predicates while a looping one holds the other", async () => {
  const runner = new WasmPredicateRunner({ workers: 2 });
  try {
    assert.equal(runner.size, 2);
    const [loop, ok] = await Promise.all([fixture("loop"), fixture("predicate")]);
    const order: string[] = [];
    const looping = runner.evaluate(loop, input("x"), { gasLimit: 1e15, timeoutMs: 1500 }).then((r) => {
      order.push("loop");
      return r;
    });
    const quick = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runner.evaluate(ok, input(i % 2 === 0 ? "ok" : "no")).then((r) => {
          order.push("quick");
          return r;
        }),
      ),
    );
    assert.deepEqual(
      quick.map((r) => r.valid),
      Array.from({ length: 20 }, (_, i) => i % 2 === 0),
    );
    const stopped = await looping;
    assert.equal(stopped.cause, "timeout");
    assert.equal(order.at(-1), "loop", "every quick predicate finished before the loop was stopped");
    // The thread the backstop terminated is replaced for the next job.
    assert.equal((await runner.evaluate(ok, input("ok"))).valid, true);
  } finally {
    await runner.close();
  }
});

test("a pool needs at least one thread", () => {
  assert.throws(() => new WasmPredicateRunner({ workers: 0 }), RangeError);
});

test("a start function runs first, metered on the same budget, in every evaluation", async () => {
  const runner = new WasmPredicateRunner({ workers: 1 });
  try {
    // $init points the result at the "true" document; without it evaluate returns the "false" one.
    const module = (init: string) =>
      compileWat(`(module
        (memory (export "memory") 1)
        (global $out (mut i32) (i32.const 640))
        (data (i32.const 512) "\\0e\\00\\00\\00{\\"valid\\":true}")
        (data (i32.const 640) "\\0f\\00\\00\\00{\\"valid\\":false}")
        (func $init ${init})
        (start $init)
        (func (export "alloc") (param i32) (result i32) (i32.const 1024))
        (func (export "evaluate") (param i32 i32) (result i32) (global.get $out)))`);
    const set = await module("(global.set $out (i32.const 512))");
    const first = await runner.evaluate(set, input("x"));
    assert.equal(first.valid, true);
    assert.deepEqual(await runner.evaluate(set, input("x")), first);
    const spin = await runner.evaluate(await module("(loop $l (br $l))"), input("x"), { gasLimit: 10_000 });
    assert.equal(spin.cause, "out_of_gas");
    assert.equal(spin.gas_used, 10_000);
  } finally {
    await runner.close();
  }
});
