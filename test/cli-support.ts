/**
 * Real processes for the command-line tests: a hub started with `contract-hub start` on free
 * ports over a temp data directory (test/support/hubProcess.ts), and `node bin/contract-hub.js …` runs with their own
 * key directory (CONTRACT_HUB_HOME) and working folder.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after } from "node:test";
import { type HubProcess, killAll, killAllHubs, startHub } from "./support/hubProcess.js";

const BIN = resolve(import.meta.dirname, "..", "bin", "contract-hub.js");

// Every hub a command-line test file started is killed once its tests are done, whichever
// assertion failed: a hub stopped only on the success path (a second hub, a restarted one)
// kept the test process alive, and the file hung instead of reporting the failure.
after(killAllHubs);

// Likewise every command still running (one of several run at once, when another's assertion failed).
const running = new Set<ChildProcess>();
after(() => killAll(running));

/** A temp folder for one test. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `cli-${prefix}-`));
}

export type { HubProcess } from "./support/hubProcess.js";

/** Starts `contract-hub start` on free ports over `dataDir` (the shared harness of test/support). */
export function startHubProcess(dataDir: string): Promise<HubProcess> {
  return startHub(dataDir);
}

/** `send --json`'s document: the SEND's hash and index, and a warning (with its code) for each check not made. */
export interface SendDoc {
  hash: string;
  index: number;
  warnings?: string[];
  warning_codes?: string[];
}

/** A refused command's `--json` document: the error's code and details. */
export interface ErrorDoc {
  code: string;
  details?: Record<string, unknown>;
}

/** What a command run returned. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** Whether the run was killed for outliving `killAfterMs` (code is then -1). */
  killed: boolean;
  /** stdout parsed as JSON (the --json document). */
  json<T = Record<string, unknown>>(): T;
}

/**
 * How long a command may run when its caller sets no `killAfterMs` (a deadline, not a
 * measurement: commands take seconds, and this leaves room for a loaded 2-core machine). One
 * still running then has hung: it is killed and `cli` rejects naming it, so its test fails at
 * once instead of holding the file until the runner's limit.
 */
export const CLI_DEADLINE_MS = 120_000;

/**
 * Runs `contract-hub …args` in `cwd` with the key directory `home`. `killAfterMs`: a process
 * still alive then is killed and reported `killed` (for tests that assert a command ends by
 * itself); without it, one still alive after CLI_DEADLINE_MS is killed and the call rejects.
 */
export function cli(
  args: string[],
  opts: { cwd: string; home: string; env?: Record<string, string>; killAfterMs?: number },
): Promise<Run> {
  const env: Record<string, string | undefined> = { ...process.env, CONTRACT_HUB_HOME: opts.home, ...opts.env };
  if (opts.env?.HUB_URL === undefined) delete env.HUB_URL;
  const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += String(d);
  });
  child.stderr.on("data", (d) => {
    stderr += String(d);
  });
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill("SIGKILL");
  }, opts.killAfterMs ?? CLI_DEADLINE_MS);
  return new Promise((ok, fail) => {
    child.once("error", (err) => {
      clearTimeout(timer);
      running.delete(child);
      fail(err);
    });
    // On exit, not close: a process it started that kept its output open would delay close.
    child.once("exit", () => {
      clearTimeout(timer);
      running.delete(child);
      if (!killed || opts.killAfterMs !== undefined) return;
      fail(
        new Error(
          `contract-hub ${args.join(" ")} still running after ${CLI_DEADLINE_MS} ms: killed\n${stdout}\n${stderr}`,
        ),
      );
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      ok({
        code: code ?? -1,
        stdout,
        stderr,
        killed,
        json<T>() {
          try {
            return JSON.parse(stdout) as T;
          } catch {
            throw new Error(`contract-hub ${args.join(" ")} printed no JSON (exit ${code}): ${stdout}\n${stderr}`);
          }
        },
      });
    });
  });
}

/** A party of the story: its key directory, its working copy folder, and a runner bound to both. */
export class Actor {
  readonly home: string;
  readonly root: string;
  publicKey = "";

  constructor(
    readonly name: string,
    base: string,
    readonly hubUrl: string,
  ) {
    this.home = join(base, `${name}-home`);
    this.root = join(base, name);
    mkdirSync(this.root, { recursive: true });
  }

  /** Runs a command in the actor's folder (or `cwd`), with HUB_URL set; `killAfterMs` as for `cli`. */
  run(args: string[], cwd = this.root, killAfterMs?: number): Promise<Run> {
    return cli(args, {
      cwd,
      home: this.home,
      env: { HUB_URL: this.hubUrl },
      ...(killAfterMs === undefined ? {} : { killAfterMs }),
    });
  }

  /** Runs a command that must succeed and returns its --json document. */
  async ok<T = Record<string, unknown>>(args: string[], cwd = this.root): Promise<T> {
    const r = await this.run([...args, "--json"], cwd);
    if (r.code !== 0)
      throw new Error(`${this.name}: contract-hub ${args.join(" ")} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    return r.json<T>();
  }
}

/**
 * The escrow walkthrough's set-up: both parties make and register keys, the buyer creates an
 * escrow from the template with the seller's key, and the seller clones it.
 */
export async function setUpEscrow(buyer: Actor, seller: Actor, hubUrl: string): Promise<string> {
  for (const a of [buyer, seller]) {
    a.publicKey = (await a.ok<{ public_key: string }>(["keygen", "--name", a.name])).public_key;
    await a.ok(["register"]);
  }
  const init = await buyer.ok<{ contract_id: string }>([
    "init",
    ".",
    "--template",
    "escrow",
    "--param",
    "buyer=buyer",
    "--param",
    `seller=${seller.publicKey}`,
  ]);
  await seller.ok(["clone", `${hubUrl}/${init.contract_id}`, "."]);
  return init.contract_id;
}
