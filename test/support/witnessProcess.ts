/**
 * A real `contract-hub witness` process on a free loopback port, for the witness tests:
 * started over its own directory, stopped with SIGTERM or killed, restarted on the same
 * directory. What it prints on stderr (its refusals) is kept for assertions.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { HubClient } from "../../src/client/HubClient.js";
import { BIN, killAll } from "./hubProcess.js";
import { Writer } from "./pgHubs.js";

export interface WitnessProcess {
  url: string;
  /** The witness's verifier key (`<name>+<key id>+<base64(0x04 ‖ key)>`). */
  verifierKey: string;
  dataDir: string;
  /** Everything it printed on stderr so far. */
  stderr(): string;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

/** Starts a witness over `dataDir` for the logs `logs` (verifier keys), with extra arguments. */
export function startWitness(dataDir: string, logs: readonly string[], extra: string[] = []): Promise<WitnessProcess> {
  const args = [BIN, "witness", "--port", "0", "--data-dir", dataDir, ...logs.flatMap((l) => ["--log", l]), ...extra];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => {
      running.delete(child);
      resolve();
    }),
  );
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => {
    stderr += d.toString("utf8");
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString("utf8");
      const key = /^Witness\s+(\S+)/m.exec(out);
      const url = /^HTTP\s+(http:\/\/\S+)/m.exec(out);
      if (key === null || url === null) return;
      resolve({
        url: url[1]!,
        verifierKey: key[1]!,
        dataDir,
        stderr: () => stderr,
        stop: async () => {
          child.kill("SIGTERM");
          await exited;
        },
      });
    });
    exited.then(() => reject(new Error(`witness exited before listening: ${stderr}`)));
  });
}

/** SIGKILLs every witness this module started that is still running (for `after` hooks). */
export function killAllWitnesses(): Promise<void> {
  return killAll(running);
}

/** Grows a hub's log by a new contract of `n` commits (a genesis and n − 1 posts), pushed by a fresh identity. */
export async function grow(hubUrl: string, n: number): Promise<string> {
  const w = new Writer();
  const client = new HubClient({ url: hubUrl, accessKey: w.seed });
  await client.register(w.seed, w.seed);
  const id = `c${randomBytes(6).toString("hex")}`;
  const g = w.genesis(id);
  const commits = [g, ...w.chain(id, g.hash, n - 1)];
  await client.push(id, commits);
  return commits[commits.length - 1]!.hash;
}
