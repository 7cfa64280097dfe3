/**
 * A real `contract-hub start` process (bin/contract-hub.js) for multi-process tests: REST
 * on a free loopback port, no JSON-RPC port, no rate limit, the given PostgreSQL URL.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** A running hub process. */
export interface HubProcess {
  url: string;
  /** The JSON-RPC address, when the hub serves it. */
  rpcUrl?: string;
  /** What it printed on stdout so far (until the addresses). */
  output(): string;
  child: ChildProcess;
  /** SIGKILL: no drain, no close (a crash). Resolves when it is gone. */
  kill(): Promise<void>;
  /** SIGTERM: the graceful shutdown. Resolves with the exit code. */
  stop(): Promise<number | null>;
}

const BIN = fileURLToPath(new URL("../../bin/contract-hub.js", import.meta.url));

/** Starts a hub on `databaseUrl`; resolves once it printed its REST address. */
export function startHubProcess(databaseUrl: string): Promise<HubProcess> {
  return spawnHub(["--port", "0", "--no-rpc", "--rate-limit", "0", "--database-url", databaseUrl]);
}

/**
 * Runs `contract-hub start` with `args`; resolves once it printed its addresses (`rpcUrl`
 * is set when it serves JSON-RPC). Only real processes: what a user starts.
 */
export function spawnHub(args: string[]): Promise<HubProcess> {
  const child = spawn(process.execPath, [BIN, "start", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, HUB_LOG_LEVEL: "warn" },
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const m = /REST\s+(http:\/\/\S+)/.exec(out);
      // The addresses are printed before the WASM line.
      if (m === null || !/^WASM /m.test(out)) return;
      const rpc = /JSON-RPC\s+(http:\/\/\S+)/.exec(out);
      child.stdout!.removeAllListeners("data");
      child.stdout!.resume();
      resolve({
        url: m[1]!,
        ...(rpc ? { rpcUrl: rpc[1]! } : {}),
        output: () => out,
        child,
        kill: async () => {
          child.kill("SIGKILL");
          await exited;
        },
        stop: async () => {
          child.kill("SIGTERM");
          return exited;
        },
      });
    });
    exited.then((code) => reject(new Error(`hub exited (${code}) before listening: ${stderr}`)));
  });
}
