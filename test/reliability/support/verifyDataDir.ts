/**
 * Runs the hub-side fsck, `contract-hub verify --data-dir DIR --json` (PROTOCOL.md §12), as
 * an operator would: a separate process over the stopped hub's files. Untrusted replay of
 * every contract: hashes, parent links, signatures, transitions, head and length.
 */
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { BIN } from "../../support/hubProcess.js";

/** The `--json` document of verify. */
export interface VerifyDoc {
  ok: boolean;
  checked: number;
  damaged: number;
  contracts: {
    contract_id: string;
    ok: boolean;
    commits: number;
    damage?: { index: number | null; hash?: string; message: string };
  }[];
}

/** Verifies `dataDir`; resolves with the exit code and the parsed document. */
export function verifyDataDir(dataDir: string): Promise<{ code: number; doc: VerifyDoc }> {
  const env: Record<string, string | undefined> = { ...process.env, CONTRACT_HUB_HOME: tmpdir() };
  delete env.HUB_URL;
  const child = spawn(process.execPath, [BIN, "verify", "--data-dir", dataDir, "--json"], {
    cwd: tmpdir(),
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += String(d);
  });
  child.stderr.on("data", (d) => {
    stderr += String(d);
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      try {
        resolve({ code: code ?? -1, doc: JSON.parse(stdout) as VerifyDoc });
      } catch {
        reject(new Error(`verify printed no JSON (exit ${code}): ${stdout}\n${stderr}`));
      }
    });
  });
}
