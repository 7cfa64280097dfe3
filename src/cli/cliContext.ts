/**
 * What the working-copy commands share: where they run (cwd, environment), how they print
 * (one JSON document with --json, prose otherwise) and how failures become exit codes
 * (docs/cli.md: 0 ok, 1 refused or failed, 2 usage).
 */

import { ContractError, isContractError } from "../contract/ContractError.js";
import { errorBody } from "../http/errorTable.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type Io, processIo } from "./Io.js";

/**
 * An Io that may also pin the environment, the working directory and whether stderr is a
 * terminal; tests pass these, the real process falls back to `process`.
 */
export interface CliIo extends Io {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Whether progress bars may be drawn on stderr. */
  errIsTTY?: boolean;
  /** Raw stderr write (no newline added), for progress bars. */
  errRaw?: (text: string) => void;
}

/** The resolved surroundings of one command run. */
export interface Cli {
  io: Io;
  env: Record<string, string | undefined>;
  cwd: string;
  json: boolean;
  errIsTTY: boolean;
  errRaw: (text: string) => void;
  /** Run when the command ends, whatever its outcome (the working copy's lock is released here). */
  cleanups: (() => void)[];
  /** `--timeout` as given, read with CONTRACT_HUB_TIMEOUT by each client of the hub (hubTimeout.ts). */
  timeout: string | undefined;
}

/** A command line that cannot be acted on (exit 2). */
export class UsageError extends Error {
  override name = "UsageError";

  /** What a script may match on, printed as `details` of the --json error document. */
  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** Builds the command's surroundings from its Io (defaults: the real process). */
export function cliOf(io: CliIo, opts: { json?: boolean; timeout?: string }): Cli {
  const c = io;
  const real = io === processIo;
  return {
    io,
    env: c.env ?? process.env,
    cwd: c.cwd ?? process.cwd(),
    json: opts.json === true,
    errIsTTY: c.errIsTTY ?? (real && process.stderr.isTTY === true),
    errRaw: c.errRaw ?? ((t) => process.stderr.write(t)),
    cleanups: [],
    timeout: opts.timeout,
  };
}

/** Prints the command's result: `doc` as JSON with --json, else the human lines. */
export function report(cli: Cli, doc: unknown, human: () => string | string[]): void {
  if (cli.json) {
    cli.io.out(`${JSON.stringify(doc, null, 2)}\n`);
    return;
  }
  const text = human();
  const lines = Array.isArray(text) ? text : [text];
  if (lines.length > 0) cli.io.out(`${lines.join("\n")}\n`);
}

/**
 * Runs a command body and maps what it throws to an exit code: UsageError → 2, ContractError
 * and other failures → 1. With --json the error is one JSON document on stdout
 * (`{error, code, details?}`, the hub's error body), so scripts always get JSON.
 */
export async function runCommand(
  io: Io,
  opts: { json?: boolean; timeout?: string },
  name: string,
  body: (cli: Cli) => Promise<number | undefined>,
): Promise<number> {
  const cli = cliOf(io, opts);
  try {
    return (await body(cli)) ?? EXIT_OK;
  } catch (err) {
    if (err instanceof UsageError) {
      const doc = { error: err.message, code: "USAGE", ...(err.details === undefined ? {} : { details: err.details }) };
      if (cli.json) io.out(`${JSON.stringify(doc, null, 2)}\n`);
      io.err(`contract-hub ${name}: ${err.message}`);
      return EXIT_USAGE;
    }
    const e = isContractError(err)
      ? err
      : new ContractError("INTERNAL", err instanceof Error ? err.message : String(err));
    if (cli.json) io.out(`${JSON.stringify(errorBody(e), null, 2)}\n`);
    else io.err(explainError(name, e));
    return EXIT_FAILED;
  } finally {
    for (const cleanup of cli.cleanups.splice(0)) cleanup();
  }
}

/** A refusal or failure for people: the message, then what the engine tried (candidates, failed properties). */
export function explainError(name: string, e: ContractError): string {
  const lines = [`contract-hub ${name}: ${e.message}`];
  const d = e.details ?? {};
  const cause = (d.cause ?? {}) as Record<string, unknown>;
  // Transitions the engine tried; an asset refusal's `candidates` are asset names (asset_ambiguous), not listed here.
  const tried = (d.candidates ?? cause.candidates) as unknown[] | undefined;
  const candidates = Array.isArray(tried)
    ? tried.filter((c): c is Candidate => typeof c === "object" && c !== null)
    : undefined;
  if (candidates !== undefined && candidates.length > 0) {
    const noRunner = (d.wasm_disabled ?? cause.wasm_disabled) === true;
    lines.push("  transitions tried:");
    for (const c of candidates) {
      lines.push(`    ${c.from} -> ${c.to} [${c.label}]`);
      for (const f of c.failed ?? []) {
        const why = f.errors && f.errors.length > 0 ? `: ${f.errors.join("; ")}` : "";
        const gas = f.gas_used === undefined ? "" : ` (gas ${f.gas_used})`;
        const kind = f.kind === "not_evaluated" && noRunner ? NOT_RUN_TEXT : (KIND_TEXT[f.kind] ?? f.kind);
        lines.push(`      ${kind} ${f.property}${why}${gas}`);
      }
    }
  }
  const counterexample = (d.counterexample ?? cause.counterexample) as Counterexample | undefined;
  if (counterexample !== undefined) lines.push(`  counterexample: ${counterexampleText(counterexample)}`);
  if (typeof d.hint === "string") lines.push(d.hint);
  if (e.code === "UNAUTHORIZED") lines.push("Is the key registered with this hub? contract-hub register");
  return lines.join("\n");
}

interface Counterexample {
  kind: "path" | "unreachable" | "state";
  state: string;
  path: string[];
  transitions: string[];
  reachable?: string[];
}

/** A rule's counterexample in one line: the path to the violating state, or what is reachable. */
function counterexampleText(c: Counterexample): string {
  if (c.kind === "unreachable")
    return `from ${c.state}, no reachable state satisfies it (reachable: ${(c.reachable ?? []).join(", ")})`;
  if (c.kind === "path" && c.path.length > 1) {
    return c.path.map((s, i) => (i === 0 ? s : ` -[${c.transitions[i - 1] ?? ""}]-> ${s}`)).join("");
  }
  return `at state ${c.state}`;
}

interface Candidate {
  from: string;
  to: string;
  label: string;
  failed?: { property: string; kind: string; errors?: string[]; gas_used?: number }[];
}

const KIND_TEXT: Record<string, string> = {
  missing: "not satisfied:",
  forbidden: "forbidden but present:",
  needs_label: "needs a transition naming",
  needs_modifies: "needs a transition allowing",
  not_evaluated: "not evaluated (explanation cut short):",
};
/** `not_evaluated` of a refusal marked `wasm_disabled`: decided without a runner of custom predicates. */
const NOT_RUN_TEXT = "not evaluated (custom predicates are not run here):";

/** A progress bar on stderr; drawn only when stderr is a terminal (pipes and logs stay clean). */
export interface Progress {
  update(done: number): void;
  finish(): void;
}

/** A bar for `total` items of `what`, or a no-op when not `wanted` or stderr is not a TTY. */
export function progressBar(cli: Cli, total: number, what: string, wanted = true): Progress {
  if (!wanted || !cli.errIsTTY || cli.json) return { update() {}, finish() {} };
  const width = 30;
  let drawn = false;
  return {
    update(done) {
      const filled = Math.round((width * done) / Math.max(1, total));
      cli.errRaw(`\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} ${what}`);
      drawn = true;
    },
    finish() {
      if (drawn) cli.errRaw("\n");
    },
  };
}
