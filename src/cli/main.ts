import { Command, CommanderError } from "commander";
import { VERSION } from "../lib/version.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type Io, processIo } from "./Io.js";
import { modelCheckCommand } from "./modelCheckCommand.js";
import { modelGraphCommand } from "./modelGraphCommand.js";
import { modelParseCommand } from "./modelParseCommand.js";
import { registerProposalCommands } from "./registerProposalCommands.js";
import { registerSynthesizeCommand } from "./synthesizeCommand.js";
import { registerWitnessCommand } from "./witnessCommand.js";
import { registerWorkingCopyCommands } from "./workingCopyCommands.js";

export { VERSION };

/** Builds the `contract-hub` program; each action resolves to an exit code. */
export function buildProgram(io: Io, setExit: (code: number) => void): Command {
  const program = new Command("contract-hub")
    .description("Verifiable contracts: signed, hash-chained logs checked against a model and rules")
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) });

  // The default command, so `npm start -- --port 8080` and plain `npm start` run the hub.
  program
    .command("start", { isDefault: true })
    .description("Run the hub: REST, JSON-RPC and WebSocket")
    .option("--port <port>", "REST port (0 = any free port; env HUB_PORT; default 8080)")
    .option("--rpc-port <port>", "JSON-RPC port (env HUB_RPC_PORT; default 3000)")
    .option("--host <host>", "address to bind (env HUB_HOST; default 127.0.0.1)")
    .option("--data-dir <dir>", "SQLite data directory (env HUB_DATA_DIR; default ./data)")
    .option("--database-url <url>", "PostgreSQL URL instead of SQLite (env HUB_DATABASE_URL)")
    .option("--no-rpc", "do not serve JSON-RPC")
    .option(
      "--rate-limit <n>",
      "requests per second per access key, per identity and per anonymous address, 0 = off (env HUB_RATE_LIMIT; default 500)",
    )
    .option("--no-wasm", "do not run custom WASM predicates (commits that need one get 503)")
    .option("--wasm-workers <n>", "threads for custom predicates (env HUB_WASM_WORKERS; default: one per core)")
    .option("--wasm-gas-limit <n>", "gas per custom predicate evaluation (env HUB_WASM_GAS_LIMIT; default 10000000)")
    .option("--log-key <file>", "checkpoint signing key file (env HUB_LOG_KEY; default: kept with the store)")
    .option("--log-origin <origin>", "checkpoint origin (env HUB_LOG_ORIGIN; default contract-hub/<key hash>)")
    .option(
      "--witness <key@url>",
      "serve only checkpoints this witness cosigned: its verifier key, @, its URL (repeatable; env HUB_WITNESSES)",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option("--witness-quorum <k>", "cosignatures a checkpoint needs (env HUB_WITNESS_QUORUM; default: every witness)")
    .option(
      "--witness-interval <ms>",
      "time between submissions to the witnesses (env HUB_WITNESS_INTERVAL; default 1000)",
    )
    .option(
      "--work-budget <ms>",
      "expensive work per identity or address, CPU-ms a minute, 0 = off (env HUB_WORK_BUDGET; default 5000)",
    )
    .option(
      "--anonymous-sockets <n>",
      "anonymous WebSocket connections per address, 0 = no cap (env HUB_ANONYMOUS_SOCKETS; default 100)",
    )
    .option(
      "--caller-subscriptions <n>",
      "WebSocket subscriptions per identity, or per address when anonymous, 0 = no cap (env HUB_CALLER_SUBSCRIPTIONS; default 1000)",
    )
    .option(
      "--registration-limit <n>",
      "new identities per address per hour, 0 = off (env HUB_REGISTRATION_LIMIT; default 20)",
    )
    .option("--headers-timeout <ms>", "time to receive a request's headers (env HUB_HEADERS_TIMEOUT; default 10000)")
    .option("--request-timeout <ms>", "time to receive a whole request (env HUB_REQUEST_TIMEOUT; default 60000)")
    .option(
      "--check-budget <visits>",
      "state visits one request's model checks may spend together (env HUB_CHECK_BUDGET; default 100000000)",
    )
    .option(
      "--snapshot-every <n>",
      "store a contract's state snapshot every n commits, 0 = never (env HUB_SNAPSHOT_EVERY; default 1000)",
    )
    .action(async (opts) => {
      // Loaded on demand: the server stack (fastify, SQLite, pg) is not needed by other commands.
      const { startCommand } = await import("./startCommand.js");
      setExit(await startCommand(opts, io, { version: VERSION }));
    });

  const model = program.command("model").description("Work with contract models and formulas");
  model
    .command("parse <file>")
    .description("Parse a model, formula or rule file and print its syntax tree")
    .option("--json", "print JSON")
    .action(async (file: string, opts: { json?: boolean }) => setExit(await modelParseCommand(file, opts, io)));
  model
    .command("check <model-file> <formula>")
    .description("Model-check a formula against a model")
    .option("--json", "print JSON")
    .action(async (file: string, formula: string, opts: { json?: boolean }) =>
      setExit(await modelCheckCommand(file, formula, opts, io)),
    );
  model
    .command("graph <file>")
    .description("Print a model as Graphviz DOT and Mermaid")
    .action(async (file: string) => setExit(await modelGraphCommand(file, io)));
  registerSynthesizeCommand(program, io, setExit);
  registerWorkingCopyCommands(program, io, setExit);
  registerProposalCommands(program, io, setExit);
  registerWitnessCommand(program, io, setExit);
  return program;
}

/** Runs the command line; returns the process exit code. */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  let code = EXIT_OK;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  const json = wantsJson(argv);
  const unknown = unknownCommand(program, argv);
  if (unknown !== null) return usageError(io, json, unknown);
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; anything else is a usage error,
      // which commander has printed on stderr already.
      if (error.exitCode === 0) return EXIT_OK;
      if (json) printUsageJson(io, error.message.replace(/^error: /, ""));
      return EXIT_USAGE;
    }
    io.err(`contract-hub: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT_FAILED;
  }
  return code;
}

/** Whether the command line asks for JSON (before any `--`, after which words are arguments). */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end < 0 ? argv : argv.slice(0, end)).includes("--json");
}

/**
 * A first word that names no command. `start` is the default command (so that `npm start --
 * --port 8080` runs the hub), and commander would take the word as an argument of `start`
 * and complain about that instead; the person mistyped a command, so say which.
 */
function unknownCommand(program: Command, argv: readonly string[]): string | null {
  const word = argv[0];
  if (word === undefined || word.startsWith("-") || word === "help") return null;
  const known = program.commands.some((c) => c.name() === word || c.aliases().includes(word));
  return known ? null : `unknown command '${word}' (contract-hub --help lists the commands)`;
}

/** A usage error found before commander ran: on stderr, and as the JSON error document with --json. */
function usageError(io: Io, json: boolean, message: string): number {
  io.err(`error: ${message}`);
  if (json) printUsageJson(io, message);
  return EXIT_USAGE;
}

/** The error document of a usage error (docs/cli.md: `{error, code: "USAGE"}`), as runCommand prints it. */
function printUsageJson(io: Io, message: string): void {
  io.out(`${JSON.stringify({ error: message, code: "USAGE" }, null, 2)}\n`);
}
