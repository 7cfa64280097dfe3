/**
 * A real `contract-hub start` process (bin/contract-hub.js), what a user starts, for the
 * reliability, multi-process and command-line tests: over a SQLite data directory or a
 * PostgreSQL database, on free loopback ports; SIGKILLed (a crash: no drain, no close) or
 * stopped with SIGTERM; restarted on the same store; its RSS read from /proc. Every process
 * started here is remembered, so an `after` hook can kill what a failed test left running.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const BIN = fileURLToPath(new URL("../../bin/contract-hub.js", import.meta.url));

const running = new Set<ChildProcess>();

/** A running hub. */
export interface HubProcess {
  url: string;
  /** The JSON-RPC address ("" when the hub serves none). */
  rpcUrl: string;
  /** The SQLite data directory ("" for PostgreSQL or when started with other arguments). */
  dataDir: string;
  pid: number;
  child: ChildProcess;
  /** What it printed on stdout until its addresses. */
  output(): string;
  /** Milliseconds from spawn to the first successful `GET /health` (startHub), or to the printed addresses. */
  readyMs: number;
  /** SIGKILL: no drain, no close (a crash). Resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (graceful drain); resolves with the exit code. */
  stop(): Promise<number | null>;
  /** Resident set size in bytes (Linux /proc), or NaN elsewhere. */
  rss(): number;
}

/**
 * Starts a hub on `store` — a SQLite data directory, or `{databaseUrl}` — with REST and
 * JSON-RPC on free ports and no rate limit, and waits until `/health` answers.
 */
export async function startHub(
  store: string | { databaseUrl: string },
  extraArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<HubProcess> {
  const started = performance.now();
  const storeArgs = typeof store === "string" ? ["--data-dir", store] : ["--database-url", store.databaseUrl];
  const hub = await spawnHub(["--port", "0", "--rpc-port", "0", "--rate-limit", "0", ...storeArgs, ...extraArgs], env);
  await untilHealthy(hub.url);
  return {
    ...hub,
    dataDir: typeof store === "string" ? store : "",
    readyMs: performance.now() - started,
  };
}

/** Starts a hub on a PostgreSQL database: REST only, no rate limit. */
export function startHubProcess(databaseUrl: string): Promise<HubProcess> {
  return spawnHub(["--port", "0", "--no-rpc", "--rate-limit", "0", "--database-url", databaseUrl]);
}

/**
 * Runs `contract-hub start` with `args` (and `env` added to this process's environment);
 * resolves once it printed its addresses (`rpcUrl` is set when it serves JSON-RPC) and its
 * WASM line, which follows them.
 */
export function spawnHub(args: string[], env: Record<string, string> = {}): Promise<HubProcess> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, "start", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, HUB_LOG_LEVEL: "warn", ...env },
  });
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
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const rest = /^REST\s+(http:\/\/\S+)/m.exec(out);
      if (rest === null || !/^WASM /m.test(out)) return;
      const rpc = /^JSON-RPC\s+(http:\/\/\S+)/m.exec(out);
      child.stdout!.removeAllListeners("data");
      child.stdout!.resume();
      resolve({
        url: rest[1]!,
        rpcUrl: rpc ? rpc[1]! : "",
        dataDir: "",
        pid: child.pid!,
        child,
        output: () => out,
        readyMs: performance.now() - started,
        kill: async () => {
          child.kill("SIGKILL");
          await exited;
        },
        stop: async () => {
          child.kill("SIGTERM");
          return exited;
        },
        rss: () => rssOf(child.pid!),
      });
    });
    exited.then((code) => reject(new Error(`hub exited (${code}) before listening: ${stderr}`)));
  });
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
export function killAllHubs(): Promise<void> {
  return killAll(running);
}

/** SIGKILLs each of `children` still running; resolves once all are gone. */
export async function killAll(children: Iterable<ChildProcess>): Promise<void> {
  await Promise.all(
    [...children].map(
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
