/**
 * A real `contract-hub start` process (bin/contract-hub.js) for multi-process tests: REST
 * on a free loopback port, no JSON-RPC port, no rate limit, the given PostgreSQL URL.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** A running hub process. */
export interface HubProcess {
  url: string;
  child: ChildProcess;
  /** SIGKILL: no drain, no close (a crash). Resolves when it is gone. */
  kill(): Promise<void>;
  /** SIGTERM: the graceful shutdown. Resolves with the exit code. */
  stop(): Promise<number | null>;
}

const BIN = fileURLToPath(new URL("../../bin/contract-hub.js", import.meta.url));

/** Starts a hub on `databaseUrl`; resolves once it printed its REST address. */
export function startHubProcess(databaseUrl: string): Promise<HubProcess> {
  const child = spawn(
    process.execPath,
    [BIN, "start", "--port", "0", "--no-rpc", "--rate-limit", "0", "--database-url", databaseUrl],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, HUB_LOG_LEVEL: "warn" } },
  );
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
      if (m === null) return;
      child.stdout!.removeAllListeners("data");
      child.stdout!.resume();
      resolve({
        url: m[1]!,
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
