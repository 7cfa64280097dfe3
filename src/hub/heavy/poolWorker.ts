/**
 * The entry of every WorkerPool thread: runs the named task on each message and answers with
 * its result (or its error, a ContractError kept with its code and details) and the
 * milliseconds it took. Add a task by naming it in TASKS.
 */
import { parentPort } from "node:worker_threads";
import { isContractError } from "../../contract/ContractError.js";
import { keyedWasmValueCheck } from "../../contract/wasmValueMemo.js";
import { announceThread } from "../../lib/threadRoles.js";
import { checkRulesTask } from "./checkRulesTask.js";
import { synthesisCheckTask, synthesisFixTask } from "./synthesisWork.js";
import type { TaskReply } from "./WorkerPool.js";

const TASKS: Record<string, (payload: never) => unknown> = {
  checkRules: checkRulesTask,
  synthesisCheck: synthesisCheckTask,
  synthesisFix: synthesisFixTask,
  checkWasmValue: keyedWasmValueCheck,
};

// For the hub bench's split of CPU time by thread (HUB_THREAD_ROLES_FILE); nothing when unset.
announceThread("heavy");
parentPort?.on("message", async (message: { id: number; task: string; payload: unknown }) => {
  const started = performance.now();
  let reply: TaskReply;
  try {
    const run = TASKS[message.task];
    if (run === undefined) throw new Error(`unknown worker task ${JSON.stringify(message.task)}`);
    const result = await run(message.payload as never);
    reply = { id: message.id, ok: true, result, ms: performance.now() - started };
  } catch (err) {
    const error = isContractError(err)
      ? { contract: true, code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) }
      : { contract: false, message: err instanceof Error ? err.message : String(err) };
    reply = { id: message.id, ok: false, ms: performance.now() - started, error };
  }
  parentPort!.postMessage(reply);
});
