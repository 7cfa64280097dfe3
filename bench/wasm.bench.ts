import { readFileSync } from "node:fs";
import { compileWat } from "../src/predicates/wasm/compileWat.js";
import { evaluateWasmPredicate } from "../src/predicates/wasm/evaluateWasmPredicate.js";
import { GAS_EXPORT, instrumentModule } from "../src/predicates/wasm/instrumentModule.js";
import { wasm } from "../src/predicates/wasm/wasmApi.js";
import { medianMs, type Reporter } from "./Reporter.js";

const ITERATIONS = 10_000_000;
const LOOP = `(module
  (memory (export "memory") 1)
  (func (export "alloc") (param i32) (result i32) (i32.const 0))
  (func (export "evaluate") (param $n i32) (param $len i32) (result i32)
    (local $i i32) (local $acc i32)
    (loop $l
      (local.set $acc (i32.add (local.get $acc) (i32.xor (local.get $i) (i32.const 0x55))))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $acc)))`;

/** Metering overhead on a tight loop, and end-to-end predicate throughput through the worker. */
export default async function wasmBench(r: Reporter): Promise<void> {
  const plainBytes = await compileWat(LOOP);
  const meteredBytes = instrumentModule(plainBytes, 256);
  const plain = new wasm.Instance(new wasm.Module(plainBytes), {}).exports;
  const metered = new wasm.Instance(new wasm.Module(meteredBytes), {}).exports;
  const gas = metered[GAS_EXPORT] as { value: bigint };
  const runPlain = plain.evaluate as (n: number, l: number) => number;
  const runMetered = metered.evaluate as (n: number, l: number) => number;
  runPlain(ITERATIONS, 0);
  gas.value = 10n ** 15n;
  runMetered(ITERATIONS, 0);
  const plainMs = medianMs(() => runPlain(ITERATIONS, 0), 7);
  const meteredMs = medianMs(() => {
    gas.value = 10n ** 15n;
    runMetered(ITERATIONS, 0);
  }, 7);
  r.add({ bench: "wasm", case: "1e7-iteration loop, uninstrumented", value: plainMs, unit: "ms" });
  r.add({ bench: "wasm", case: "1e7-iteration loop, instrumented", value: meteredMs, unit: "ms" });
  r.add({ bench: "wasm", case: "metering slowdown", value: meteredMs / plainMs, unit: "ratio" });
  const instrumentMs = medianMs(() => instrumentModule(plainBytes, 256), 51);
  r.add({ bench: "wasm", case: "instrument a small module", value: instrumentMs * 1000, unit: "µs" });

  const predicate = await compileWat(
    readFileSync(new URL("../test/fixtures/wasm/predicate.wat", import.meta.url), "utf8"),
  );
  const input = {
    args: ["ok"],
    contract_id: "bench",
    commit: { hash: "00".repeat(32), parent: null, data: {}, labels: [], signers: [], timestamp: 0 },
    state: {},
  };
  for (let i = 0; i < 50; i++) await evaluateWasmPredicate(predicate, input);
  const n = 2000;
  const start = performance.now();
  for (let i = 0; i < n; i++) await evaluateWasmPredicate(predicate, input);
  const sequential = (n / (performance.now() - start)) * 1000;
  r.add({ bench: "wasm", case: "trivial predicate via worker, sequential", value: sequential, unit: "evaluations/s" });
  const startBatch = performance.now();
  await Promise.all(Array.from({ length: n }, () => evaluateWasmPredicate(predicate, input)));
  const queued = (n / (performance.now() - startBatch)) * 1000;
  r.add({ bench: "wasm", case: "trivial predicate via worker, 2000 queued", value: queued, unit: "evaluations/s" });
}
