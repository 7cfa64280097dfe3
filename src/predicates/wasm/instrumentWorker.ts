/**
 * Worker entry of `instrumentOffThread`: instruments one module per message and answers with
 * the instrumented bytes, or the policy violation that refuses the module.
 */
import { parentPort } from "node:worker_threads";
import { announceThread } from "../../lib/threadRoles.js";
import { InvalidModuleError } from "./InvalidModuleError.js";
import { instrumentModule } from "./instrumentModule.js";

/** What the worker answers for one module. */
export type InstrumentReply =
  | { id: number; ok: true; bytes: Uint8Array }
  | { id: number; ok: false; invalid: boolean; message: string };

// For the hub bench's split of CPU time by thread (HUB_THREAD_ROLES_FILE); nothing when unset.
announceThread("instrument");
parentPort?.on("message", (job: { id: number; bytes: Uint8Array; maxMemoryPages: number }) => {
  let reply: InstrumentReply;
  try {
    reply = { id: job.id, ok: true, bytes: instrumentModule(job.bytes, job.maxMemoryPages) };
  } catch (e) {
    const invalid = e instanceof InvalidModuleError;
    reply = { id: job.id, ok: false, invalid, message: e instanceof Error ? e.message : String(e) };
  }
  if (reply.ok) parentPort!.postMessage(reply, [reply.bytes.buffer as ArrayBuffer]);
  else parentPort!.postMessage(reply);
});
