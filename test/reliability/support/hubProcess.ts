/**
 * A real `contract-hub start` process over a SQLite data directory, as the reliability
 * harnesses need it: started, SIGKILLed (a crash: no drain, no close), restarted on the same
 * directory, its RSS read from /proc. Every process started here is remembered, so an
 * `after` hook can kill what a failed test left running.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const BIN = fileURLToPath(new URL("../../../bin/contract-hub.js", import.meta.url));

const running = new Set<ChildProcess>();

/** A running hub. */
export interface HubProcess {
  url: string;
  rpcUrl: string;
  dataDir: string;
  pid: number;
  /** Milliseconds from spawn to the first successful `GET /health`. */
  readyMs: number;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (graceful drain); resolves with the exit code. */
  stop(): Promise<number | null>;
  /** Resident set size in bytes (Linux /proc), or NaN elsewhere. */
  rss(): number;
}

/** Starts a hub on `dataDir` (free ports, no rate limit) and waits until `/health` answers. */
export async function startHub(dataDir: string, extraArgs: string[] = []): Promise<HubProcess> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [BIN, "start", "--port", "0", "--rpc-port", "0", "--rate-limit", "0", "--data-dir", dataDir, ...extraArgs],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, HUB_LOG_LEVEL: "warn" } },
  );
  running.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4000);
  });
  const urls = await new Promise<{ url: string; rpcUrl: string }>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const rest = /^REST\s+(http:\/\/\S+)/m.exec(out);
      const rpc = /^JSON-RPC\s+(http:\/\/\S+)/m.exec(out);
      if (rest === null || rpc === null) return;
      child.stdout!.removeAllListeners("data");
      child.stdout!.resume();
      resolve({ url: rest[1]!, rpcUrl: rpc[1]! });
    });
    exited.then((code) => reject(new Error(`hub exited (${code}) before listening: ${stderr}`)));
  });
  await untilHealthy(urls.url);
  const readyMs = performance.now() - started;
  return {
    ...urls,
    dataDir,
    pid: child.pid!,
    readyMs,
    kill: async () => {
      child.kill("SIGKILL");
      await exited;
    },
    stop: async () => {
      child.kill("SIGTERM");
      return exited;
    },
    rss: () => rssOf(child.pid!),
  };
}

/** Polls `GET /health` until it answers 200 (bounded: 30 s). */
export async function untilHealthy(url: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    try {
      const res = await fetch(`${url}/health`);
      await res.body?.cancel();
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`hub at ${url} never became healthy`);
}

/** SIGKILLs every hub this module started that is still running (for `after` hooks). */
export async function killAllHubs(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        }),
    ),
  );
}

/** VmRSS of a process in bytes. */
export function rssOf(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
