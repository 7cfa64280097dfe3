import type { Command } from "commander";
import { isContractError } from "../contract/ContractError.js";
import { errorBody } from "../http/errorTable.js";
import { type Env, synthesize } from "../synthesis/index.js";
import type { SynthesisResult } from "../synthesis/SynthesisResult.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type Io } from "./Io.js";

function human(r: SynthesisResult): string {
  const lines = [
    `source: ${r.source}${r.patterns.length > 0 ? ` (patterns ${r.patterns.join(", ")})` : ""}, confidence ${r.confidence}`,
    `parties: ${r.parties.join(", ")}`,
    "",
    r.model,
    "",
    ...r.rules.flatMap((rule) => [rule, ""]),
    "protections:",
    ...Object.entries(r.protections).map(([p, t]) => `  ${p}: ${t}`),
  ];
  if (r.warnings.length > 0) lines.push("", "warnings:", ...r.warnings.map((w) => `  ${w}`));
  return lines.join("\n");
}

/**
 * `contract-hub synthesize "<description>" [--hint NAME] [--json]`: the same synthesis as
 * `POST /contracts/synthesize`, configured by the same environment variables. Exit 0 with a
 * result, 1 when synthesis is refused or fails (the error body on stdout with --json), 2 for an
 * empty description.
 */
export async function synthesizeCommand(
  description: string,
  opts: { hint?: string; json?: boolean },
  io: Io,
  env: Env = process.env,
): Promise<number> {
  if (description.trim() === "") {
    // A command line without a description, as when the argument is missing (exit 2).
    const message = "the description is empty: say in words what the contract is for";
    if (opts.json) io.out(JSON.stringify({ error: message, code: "USAGE" }, null, 2));
    io.err(`synthesize: ${message}`);
    return EXIT_USAGE;
  }
  try {
    const body = opts.hint === undefined ? { description } : { description, pattern_hint: opts.hint };
    const result = await synthesize(body, { env });
    const shown = { ...result, warnings: result.warnings.map(inFlags) };
    io.out(opts.json ? JSON.stringify(shown, null, 2) : human(shown));
    return EXIT_OK;
  } catch (err) {
    if (!isContractError(err)) throw err;
    const body = { ...errorBody(err), error: inFlags(err.message) };
    if (opts.json) io.out(JSON.stringify(body, null, 2));
    else io.err(`synthesize: ${body.error} (${err.code})`);
    return EXIT_FAILED;
  }
}

/**
 * The synthesizer's messages are written for the REST request, whose field is `pattern_hint`;
 * on the command line that field is the --hint flag, so name the flag the person can pass.
 */
function inFlags(text: string): string {
  return text.replace(/\bpattern_hint\b/g, "--hint");
}

/** Adds the `synthesize` command to the program. */
export function registerSynthesizeCommand(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command("synthesize <description>")
    .description("Synthesize a model, rules and protections from a description (language model, else patterns)")
    .option(
      "--hint <pattern>",
      "steer toward a pattern: escrow, deposit, milestone, swap, multisig, committee, subscription, service, loan, wager, crowdfunding, supply_chain, inheritance, licence, bounty",
    )
    .option("--json", "print JSON")
    .action(async (description: string, opts: { hint?: string; json?: boolean }) =>
      setExit(await synthesizeCommand(description, opts, io)),
    );
}
