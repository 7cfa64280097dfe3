// Worker entry for metered WASM predicates. Plain ESM JavaScript on purpose: a worker does
// not inherit tsx's loader (bin/contract-hub.js registers it in the main thread only), so a
// TypeScript entry would fail there. The host (WasmPredicateRunner.ts) sends one job at a
// time and classifies the reply; this file only instantiates, runs and copies bytes out.
import { appendFileSync, readlinkSync } from "node:fs";
import { parentPort } from "node:worker_threads";

const GAS_EXPORT = "__contract_hub_gas";
const DEPTH_EXPORT = "__contract_hub_depth";
const START_EXPORT = "__contract_hub_start";

/**
 * @typedef {{ id: number, module: WebAssembly.Module, input: Uint8Array, gasLimit: bigint, maxOutputBytes: number }} Job
 * @typedef {{ status: "returned", remaining: bigint, output: Uint8Array }
 *   | { status: "trapped", remaining: bigint, depth: number, message: string }
 *   | { status: "bad_output", remaining: bigint, message: string }} Reply
 */

if (!parentPort) throw new Error("predicateWorker.js must run in a worker thread");
const port = parentPort;

// announceThread("wasm") of src/lib/threadRoles.ts, which this plain JavaScript cannot import
// from the TypeScript sources: for the hub bench's split of CPU time by thread. Nothing when unset.
if (process.env.HUB_THREAD_ROLES_FILE) {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    appendFileSync(process.env.HUB_THREAD_ROLES_FILE, `${JSON.stringify({ role: "wasm", tid })}\n`);
  } catch {
    // no /proc (not Linux), or the file cannot be written: the bench reports no split
  }
}

port.on("message", (/** @type {Job} */ job) => {
  run(job).then((reply) => port.postMessage({ id: job.id, ...reply }));
});

/**
 * Instantiates a fresh instance (fresh memory, so no state leaks between evaluations),
 * writes the input at alloc(len), calls evaluate and returns the output bytes.
 * @param {Job} job
 * @returns {Promise<Reply>}
 */
async function run(job) {
  /** @type {string | undefined} */
  let abortMessage;
  const imports = {
    env: {
      abort(
        /** @type {number} */ _msg,
        /** @type {number} */ _file,
        /** @type {number} */ line,
        /** @type {number} */ col,
      ) {
        abortMessage = `env.abort called (line ${line}, column ${col})`;
        throw new Error(abortMessage);
      },
    },
  };
  /** @type {{ value: bigint }} */
  let gas = { value: job.gasLimit };
  /** @type {{ value: number }} */
  let depth = { value: 0 };
  try {
    const instance = await WebAssembly.instantiate(job.module, imports);
    const ex = /** @type {Record<string, any>} */ (instance.exports);
    gas = ex[GAS_EXPORT];
    depth = ex[DEPTH_EXPORT];
    gas.value = job.gasLimit;
    depth.value = 0;
    // The module's start function (exported by the instrumenter) runs first, on the same budget.
    if (typeof ex[START_EXPORT] === "function") ex[START_EXPORT]();
    const len = job.input.length;
    const ptr = ex.alloc(len) >>> 0;
    /** @type {WebAssembly.Memory} */
    const memory = ex.memory;
    if (ptr + len > memory.buffer.byteLength)
      return badOutput(gas, `alloc(${len}) returned ${ptr}, outside the ${memory.buffer.byteLength}-byte memory`);
    new Uint8Array(memory.buffer).set(job.input, ptr);
    depth.value = 0;
    const out = ex.evaluate(ptr, len) >>> 0;
    const size = memory.buffer.byteLength;
    if (out + 4 > size) return badOutput(gas, `result pointer ${out} is outside the ${size}-byte memory`);
    const outLen = new DataView(memory.buffer).getUint32(out, true);
    if (outLen > job.maxOutputBytes)
      return badOutput(gas, `result length ${outLen} exceeds the ${job.maxOutputBytes}-byte limit`);
    if (out + 4 + outLen > size) return badOutput(gas, `result length ${outLen} at ${out} runs past the memory end`);
    return {
      status: "returned",
      remaining: gas.value,
      output: new Uint8Array(memory.buffer.slice(out + 4, out + 4 + outLen)),
    };
  } catch (e) {
    const message = abortMessage ?? (e instanceof Error ? e.message : String(e));
    return { status: "trapped", remaining: gas.value, depth: depth.value, message };
  }
}

/**
 * @param {{ value: bigint }} gas
 * @param {string} message
 * @returns {Reply}
 */
function badOutput(gas, message) {
  return { status: "bad_output", remaining: gas.value, message };
}
