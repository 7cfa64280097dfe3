import { createHash } from "node:crypto";
import { setFlagsFromString } from "node:v8";
import { compiledWeight } from "./compiledWeight.js";
import { InvalidModuleError } from "./InvalidModuleError.js";
import { instrumentModule } from "./instrumentModule.js";
import { instrumentOffThread } from "./instrumentOffThread.js";
import { ModuleCache } from "./ModuleCache.js";
import { type WasmModuleHandle, wasm } from "./wasmApi.js";

/** A module ready to run, or the reason it never will. */
export type CompiledPredicate = { ok: true; module: WasmModuleHandle } | { ok: false; error: string };

/**
 * 128 modules, and at most 256 MiB of estimated compiled memory between them (compiledWeight:
 * four times the module bytes plus 1 KiB a function): enough for every predicate a busy hub's
 * contracts use at once (a module of a few hundred functions weighs under 1 MiB).
 */
const cache = new ModuleCache<CompiledPredicate>(128, 256 * 1024 * 1024);

/**
 * Modules up to this size are instrumented on the caller's thread (a few milliseconds);
 * larger ones in a worker thread, since instrumenting a module of megabytes takes seconds
 * and a hostile module must never stall the hub.
 */
export const INLINE_BYTES = 64 * 1024;

/**
 * Instruments and compiles a predicate module, memoised by SHA-256 of its bytes and the
 * page limit (which is written into the instrumented memory section). Rejections are
 * cached too: the same bytes always fail the same way. `digest` is that SHA-256 (hex) when
 * the caller has it already (the engine hashes a big module once: customModuleMemo.ts);
 * hashing an 11 MB module takes 15-25 ms of the event loop.
 */
export function compilePredicate(
  bytes: Uint8Array,
  maxMemoryPages: number,
  digest?: string,
): Promise<CompiledPredicate> {
  const key = `${digest ?? createHash("sha256").update(bytes).digest("hex")}:${maxMemoryPages}`;
  return cache.get(key, compiledWeight(bytes), () => compile(bytes, maxMemoryPages));
}

async function compile(bytes: Uint8Array, maxMemoryPages: number): Promise<CompiledPredicate> {
  let instrumented: Uint8Array;
  if (bytes.length > INLINE_BYTES) {
    const off = await instrumentOffThread(bytes, maxMemoryPages);
    if (!off.ok) return off;
    instrumented = off.bytes;
  } else {
    try {
      instrumented = instrumentModule(bytes, maxMemoryPages);
    } catch (e) {
      if (e instanceof InvalidModuleError) return { ok: false, error: e.message };
      throw e;
    }
  }
  compileEagerly();
  // A ref'd handle while V8 compiles: on Node 24 a whole-module compile in the background
  // keeps no handle on the event loop, so a short-lived process (`predicate test`) exited
  // with its compile still pending (exit 13, an unsettled top-level await).
  const keepAlive = setInterval(() => {}, 60_000);
  try {
    return { ok: true, module: await wasm.compile(instrumented) };
  } finally {
    clearInterval(keepAlive);
  }
}

let eager = false;

/**
 * V8 compiles WebAssembly functions lazily, each on its first call, by default. A module of
 * many functions then spent its first evaluation compiling them, unmetered and inside the
 * wall-clock backstop: the same module and input timed out cold and held warm, so a replay
 * on a freshly started hub could refuse a commit it had accepted. Compiling every function
 * here (in V8's background threads, before the job is queued) leaves the backstop timing
 * execution only. The flag is read at each compilation, and the hub compiles no other wasm.
 */
function compileEagerly(): void {
  if (eager) return;
  setFlagsFromString("--no-wasm-lazy-compilation");
  eager = true;
}
