/**
 * Which of a hub's threads does what, for the hub bench (docs/benchmarks.md): every thread of
 * a Node process is named "node" in /proc, so the CPU time of the verification threads, the
 * SQLite writer, the other workers and V8's and libuv's own helpers cannot be told apart there.
 * When the environment names a file (HUB_THREAD_ROLES_FILE), each worker thread the hub starts
 * appends its role and Linux thread id to it as it starts. Unset, as in production, a worker
 * reads one variable and does nothing else. Workers start on first use and a lost one is
 * replaced, so the file grows over the hub's life: read it after the work to be split.
 */
import { appendFileSync, readFileSync, readlinkSync } from "node:fs";

/** The variable naming the file the hub's worker threads announce themselves in. */
export const THREAD_ROLES_ENV = "HUB_THREAD_ROLES_FILE";

/**
 * A worker thread's job: `verify` (VerifyPool), `writer` (the SQLite writer), `heavy`
 * (WorkerPool: rule checks, synthesis), `wasm` (custom predicates, predicateWorker.js, which
 * writes the same line itself) and `instrument` (instrumenting WASM modules).
 */
export type ThreadRole = "verify" | "writer" | "heavy" | "wasm" | "instrument";

/** The calling thread's Linux thread id, or undefined where there is no /proc/thread-self (not Linux). */
export function linuxThreadId(): number | undefined {
  try {
    // "<pid>/task/<tid>"
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    return Number.isSafeInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** Appends `{"role","tid"}` to the file `env` names, if it names one; a failure is ignored (a diagnostic never stops a worker). */
export function announceThread(role: ThreadRole, env: Record<string, string | undefined> = process.env): void {
  const file = env[THREAD_ROLES_ENV];
  if (!file) return;
  const tid = linuxThreadId();
  if (tid === undefined) return;
  try {
    // One short append (O_APPEND): lines of threads starting together do not interleave.
    appendFileSync(file, `${JSON.stringify({ role, tid })}\n`);
  } catch {
    // the bench then reports no split
  }
}

/** Each role's thread ids, in the order they started, from a file announceThread wrote (empty if there is none). */
export function readThreadRoles(file: string): Map<string, number[]> {
  const roles = new Map<string, number[]>();
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return roles;
  }
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const { role, tid } = JSON.parse(line) as { role: string; tid: number };
    const tids = roles.get(role) ?? [];
    if (!tids.includes(tid)) tids.push(tid);
    roles.set(role, tids);
  }
  return roles;
}
