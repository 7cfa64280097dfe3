import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { compileWat } from "./compileWat.js";
import { GAS_EXPORT, instrumentModule } from "./instrumentModule.js";
import { wasm } from "./wasmApi.js";

// Random predicate bodies: integer expressions, stores, bulk fills, calls, nested if /
// bounded loops / blocks with conditional exits. The instrumented module must validate,
// compute the same value and leave the same memory as the original, charge the same gas
// every time, succeed on exactly that much gas and run out on one unit less.

const LOCALS = ["$a", "$b", "$c"];
const BINARY = ["add", "sub", "mul", "xor", "and", "or", "shl", "shr_u", "rotl", "div_u", "rem_s", "lt_s", "eq"];
const UNARY = ["eqz", "clz", "popcnt", "extend8_s"];

const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.integer({ min: -300, max: 300 }).map((n) => `(i32.const ${n})`),
    fc.constantFrom(...LOCALS).map((l) => `(local.get ${l})`),
    fc.constantFrom(...LOCALS).map((l) => `(i32.load (i32.and (local.get ${l}) (i32.const 0xffc)))`),
    fc.tuple(fc.constantFrom(...BINARY), tie("e"), tie("e")).map(([op, x, y]) => `(i32.${op} ${x} ${y})`),
    fc.tuple(fc.constantFrom(...UNARY), tie("e")).map(([op, x]) => `(i32.${op} ${x})`),
  ),
})).e;

function statements(depth: number): fc.Arbitrary<string> {
  const simple = [
    fc.tuple(fc.constantFrom(...LOCALS), expr).map(([l, e]) => `(local.set ${l} ${e})`),
    fc.tuple(expr, expr).map(([a, v]) => `(i32.store (i32.and ${a} (i32.const 0xffc)) ${v})`),
    fc
      .tuple(expr, expr, expr)
      .map(([d, v, n]) => `(memory.fill (i32.and ${d} (i32.const 0xfff)) ${v} (i32.and ${n} (i32.const 0xff)))`),
    fc.tuple(expr, expr).map(([x, y]) => `(local.set $a (call $helper ${x} ${y}))`),
  ];
  if (depth >= 2) return fc.array(fc.oneof(...simple), { maxLength: 3 }).map((s) => s.join("\n"));
  const inner = statements(depth + 1);
  const i = `$i${depth}`;
  const nested = [
    fc.tuple(expr, inner, inner).map(([c, t, e]) => `(if ${c} (then ${t}) (else ${e}))`),
    fc.tuple(inner, fc.integer({ min: 1, max: 20 })).map(
      ([body, k]) => `(local.set ${i} (i32.const 0))
        (loop $l${depth} ${body}
          (local.set ${i} (i32.add (local.get ${i}) (i32.const 1)))
          (br_if $l${depth} (i32.lt_u (local.get ${i}) (i32.const ${k}))))`,
    ),
    fc.tuple(inner, expr, inner).map(([a, c, b]) => `(block $b${depth} ${a} (br_if $b${depth} ${c}) ${b})`),
  ];
  return fc.array(fc.oneof(...simple, ...nested), { maxLength: 4 }).map((s) => s.join("\n"));
}

function program(body: string): string {
  return `(module
    (memory (export "memory") 1)
    (func $helper (param $x i32) (param $y i32) (result i32)
      (if (result i32) (i32.gt_u (local.get $x) (local.get $y))
        (then (i32.sub (local.get $x) (local.get $y)))
        (else (i32.add (i32.mul (local.get $x) (i32.const 3)) (local.get $y)))))
    (func (export "alloc") (param i32) (result i32) (i32.const 0))
    (func (export "evaluate") (param $ptr i32) (param $len i32) (result i32)
      (local $a i32) (local $b i32) (local $c i32) (local $i0 i32) (local $i1 i32)
      (local.set $b (i32.const 7)) (local.set $c (i32.const -5))
      ${body}
      (i32.add (local.get $a) (i32.add (i32.mul (local.get $b) (i32.const 31)) (i32.load (i32.const 8))))))`;
}

interface Run {
  outcome: string;
  memory: string;
  remaining?: bigint;
}

function run(bytes: Uint8Array, gas?: bigint): Run {
  const instance = new wasm.Instance(new wasm.Module(bytes), {});
  const ex = instance.exports as { evaluate(p: number, l: number): number; memory: { buffer: ArrayBuffer } };
  const g = instance.exports[GAS_EXPORT] as { value: bigint } | undefined;
  if (g && gas !== undefined) g.value = gas;
  let outcome: string;
  try {
    outcome = `value ${ex.evaluate(0, 0)}`;
  } catch (e) {
    outcome = `trap ${(e as Error).message}`;
  }
  return { outcome, memory: Buffer.from(ex.memory.buffer).toString("base64"), remaining: g?.value };
}

test("instrumented random programs behave like the originals and meter exactly", async () => {
  await fc.assert(
    fc.asyncProperty(statements(0), async (body) => {
      const original = await compileWat(program(body));
      const metered = instrumentModule(original, 256);
      assert.ok(wasm.validate(metered));
      const plain = run(original);
      const budget = 10n ** 12n;
      const first = run(metered, budget);
      assert.equal(first.outcome, plain.outcome);
      assert.equal(first.memory, plain.memory);
      const used = budget - first.remaining!;
      assert.ok(used > 0n);
      assert.equal(run(metered, budget).remaining, first.remaining);
      const exact = run(metered, used);
      assert.equal(exact.outcome, plain.outcome);
      assert.equal(exact.remaining, 0n);
      const short = run(metered, used - 1n);
      assert.equal(short.outcome, "trap unreachable");
      assert.ok(short.remaining! < 0n);
    }),
    { numRuns: 150 },
  );
});
