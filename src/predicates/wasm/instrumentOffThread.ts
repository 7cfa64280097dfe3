import type { Worker } from "node:worker_threads";
import { siblingModule, startWorker } from "../../lib/startWorker.js";
import type { InstrumentReply } from "./instrumentWorker.js";

/** What instrumenting a module off the event loop gave: its bytes, or why it is refused. */
export type OffThreadResult = { ok: true; bytes: Uint8Array } | { ok: false; error: string };

interface Pending {
  resolve: (r: OffThreadResult) => void;
  reject: (e: Error) => void;
}

let worker: Worker | undefined;
const pending = new Map<number, Pending>();
let nextId = 1;

/**
 * Runs `instrumentModule` in a worker thread. Instrumenting reads every instruction (a few
 * MB a second), so a module of megabytes would hold the event loop for seconds. One thread
 * serves every caller in turn; it is unref'd while idle, so it never keeps the process
 * alive. A refused module is `ok: false` with the `InvalidModuleError` message; a lost
 * thread rejects its jobs (and the next job starts a fresh one).
 */
export function instrumentOffThread(bytes: Uint8Array, maxMemoryPages: number): Promise<OffThreadResult> {
  const w = (worker ??= spawn());
  const id = nextId++;
  const copy = new Uint8Array(bytes); // a copy (Buffer#slice would share), so transferring it leaves the caller's bytes
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    w.ref();
    w.postMessage({ id, bytes: copy, maxMemoryPages }, [copy.buffer]);
  });
}

function spawn(): Worker {
  const w = startWorker(siblingModule("instrumentWorker", import.meta.url));
  w.unref();
  w.on("message", (reply: InstrumentReply) => {
    const job = pending.get(reply.id);
    if (job === undefined) return;
    pending.delete(reply.id);
    if (pending.size === 0) w.unref();
    if (reply.ok) job.resolve({ ok: true, bytes: reply.bytes });
    else if (reply.invalid) job.resolve({ ok: false, error: reply.message });
    else job.reject(new Error(reply.message));
  });
  const lost = (why: string) => {
    if (worker !== w) return;
    worker = undefined;
    const jobs = [...pending.values()];
    pending.clear();
    for (const job of jobs) job.reject(new Error(`instrumenting thread lost: ${why}`));
  };
  w.on("error", (e) => lost(e.message));
  w.on("exit", (code) => lost(`exited with code ${code}`));
  return w;
}
