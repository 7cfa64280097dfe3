/**
 * Registers the key, working-copy and verify commands on the program (docs/cli.md).
 * Kept apart from main.ts so that file only gains one call. Each action loads its command
 * on demand, like `start`, so a command pays only for the modules it uses.
 */
import type { Command } from "commander";
import type { Io } from "./Io.js";
import { TIMEOUT_HELP } from "./workingCopy/hubTimeout.js";
import { collect } from "./workingCopy/identities.js";

type SetExit = (code: number) => void;

/** Adds `--hub`, `--key`, `--timeout` and `--json` to a hub-facing command. */
function hubOptions(cmd: Command): Command {
  return cmd
    .option("--hub <url>", "hub URL (default: the working copy's hub, then HUB_URL)")
    .option("--timeout <ms>", TIMEOUT_HELP)
    .option("--key <name>", "key from the key directory (default: remembered, then default, then the only key)")
    .option("--json", "print one JSON document");
}

/** Adds the options every committing command takes (`--timeout`: its questions to the working copy's hub). */
function commitOptions(cmd: Command): Command {
  return cmd
    .option("--timeout <ms>", TIMEOUT_HELP)
    .option("--action <label>", "add an action operation (repeatable)", collect)
    .option("--sign <name>", "key that signs the commit (repeatable; default: --key)", collect)
    .option("--key <name>", "key that signs when --sign is absent")
    .option("--json", "print one JSON document");
}

/** Registers keygen, keys, register, init, clone, commit, send, recv, create, status, log, diff, push, pull, balances, incoming, reset, verify, grant. */
export function registerWorkingCopyCommands(program: Command, io: Io, setExit: SetExit): void {
  registerPredicateCommands(program, io, setExit);
  program
    .command("keygen")
    .description("Create an ed25519 key in the key directory")
    .option("--name <name>", "key name (default: default)")
    .option("--json", "print one JSON document")
    .action(async (opts) => setExit(await (await import("./keygenCommand.js")).keygenCommand(opts, io)));
  program
    .command("keys")
    .description("List the keys of the key directory")
    .option("--json", "print one JSON document")
    .action(async (opts) => setExit(await (await import("./keysCommand.js")).keysCommand(opts, io)));
  hubOptions(program.command("register").description("Register a key with the hub (identity and access key)")).action(
    async (opts) => setExit(await (await import("./registerCommand.js")).registerCommand(opts, io)),
  );
  hubOptions(
    program
      .command("init [dir]")
      .description("Create a contract on the hub and a working copy of it")
      .option("--template <name>", "instantiate a template (escrow, milestone, …)")
      .option("--param <name=value>", "template parameter; keys by name or hex (repeatable)", collect)
      .option("--model <file>", "model file")
      .option("--rule <file>", "rule file (repeatable)", collect)
      .option("--party <role=key>", "party at /users/<role>.id (repeatable)", collect)
      .option("--id <contract_id>", "contract id (default: c_ + 24 random hex)")
      .option(
        "--witness <verifier-key>",
        "require this witness's cosignature on the hub's checkpoints (repeatable)",
        collect,
      )
      .option("--witness-quorum <k>", "how many of the --witness keys must have cosigned (default: all)"),
  ).action(async (dir, opts) => setExit(await (await import("./initCommand.js")).initCommand(dir, opts, io)));
  hubOptions(
    program
      .command("clone <url> [dir]")
      .description("Copy <hub-url>/<contract_id> into a working copy, verified")
      .option(
        "--witness <verifier-key>",
        "require this witness's cosignature on the hub's checkpoints (repeatable)",
        collect,
      )
      .option("--witness-quorum <k>", "how many of the --witness keys must have cosigned (default: all)"),
  ).action(async (url, dir, opts) =>
    setExit(await (await import("./cloneCommand.js")).cloneCommand(url, dir, opts, io)),
  );
  commitOptions(
    program
      .command("commit [value]")
      .description("Make a local commit, validated like the hub would")
      .option("--post <path>", "post VALUE at a state path")
      .option("--model <file>", "replace the model")
      .option("--rule <file>", "add a rule (repeatable)", collect)
      .option("--rule-name <name>", "rule path name (default: the file's base name)"),
  ).action(async (value, opts) => setExit(await (await import("./commitCommand.js")).commitCommand(value, opts, io)));
  commitOptions(
    program
      .command("send")
      .description("Commit a SEND of an asset to another contract")
      .option("--asset <id>", "asset id (or issuer/asset_id)")
      .option("--to <contract_id>", "receiving contract")
      .option("--amount <n>", "amount")
      .option(
        "--no-recipient-check",
        "do not ask the hub about --to (a private contract this key may not read); the balance is still checked",
      )
      .option("--offline", "do not ask the hub (neither the destination nor the balance is checked before push)"),
  ).action(async (opts) => setExit(await (await import("./sendCommand.js")).sendCommand(opts, io)));
  commitOptions(
    program
      .command("recv")
      .description("Commit a RECV of a SEND made to this contract")
      .option("--send <hash>", "the SEND commit: its hash or a unique prefix (7+ characters), as incoming prints it")
      .option("--hub <url>", "hub asked to resolve a prefix (default: the working copy's hub, then HUB_URL)"),
  ).action(async (opts) => setExit(await (await import("./recvCommand.js")).recvCommand(opts, io)));
  commitOptions(
    program
      .command("create")
      .description("Commit a CREATE minting an asset")
      .option("--asset <id>", "asset id")
      .option("--quantity <n>", "quantity")
      .option("--divisibility <n>", "divisibility (default 1)"),
  ).action(async (opts) => setExit(await (await import("./createCommand.js")).createCommand(opts, io)));
  hubOptions(
    program
      .command("status")
      .description("Contract, head, state, next actions, ahead/behind the hub")
      .option("--offline", "do not ask the hub (behind is unknown)"),
  ).action(async (opts) => setExit(await (await import("./statusCommand.js")).statusCommand(opts, io)));
  program
    .command("log")
    .description("The local log, oldest first")
    .option("--json", "print one JSON document")
    .action(async (opts) => setExit(await (await import("./logCommand.js")).logCommand(opts, io)));
  hubOptions(program.command("diff").description("Commits only here and only on the hub")).action(async (opts) =>
    setExit(await (await import("./diffCommand.js")).diffCommand(opts, io)),
  );
  hubOptions(
    program
      .command("push")
      .description("Send local commits to the hub")
      .option("--batch-size <n>", "commits per request (default 1000)"),
  ).action(async (opts) => setExit(await (await import("./pushCommand.js")).pushCommand(opts, io)));
  hubOptions(program.command("pull").description("Fast-forward to the hub's head")).action(async (opts) =>
    setExit(await (await import("./pullCommand.js")).pullCommand(opts, io)),
  );
  hubOptions(
    program
      .command("balances")
      .description("What this contract holds (the hub's books) and what unpushed commits change"),
  ).action(async (opts) => setExit(await (await import("./balancesCommand.js")).balancesCommand(opts, io)));
  hubOptions(
    program
      .command("incoming")
      .description("SENDs to this contract waiting to be received (short hashes for recv --send)")
      .option("--all", "also the SENDs received already, with the RECV that took each"),
  ).action(async (opts) => setExit(await (await import("./incomingCommand.js")).incomingCommand(opts, io)));
  hubOptions(
    program
      .command("reset [target]")
      .description("Drop unpushed commits and move to the hub's head: reset --hard origin")
      .option("--hard", "confirm that local commits are dropped")
      .option("--offline", "drop local commits without pulling"),
  ).action(async (target, opts) => setExit(await (await import("./resetCommand.js")).resetCommand(target, opts, io)));
  program
    .command("verify")
    .description("Check a working copy, or with --data-dir every contract of a hub's store")
    .option("--data-dir <dir>", "the hub's SQLite data directory")
    .option("--database-url <url>", "the hub's PostgreSQL database")
    .option("--remote", "also check the hub's signed log: consistency and the inclusion of the head")
    .option("--hub <url>", "with --remote: the hub (default: the working copy's)")
    .option("--key <name>", "with --remote: the key that signs requests (private contracts)")
    .option("--timeout <ms>", TIMEOUT_HELP)
    .option("--json", "print one JSON document")
    .action(async (opts) => setExit(await (await import("./verifyCommand.js")).verifyCommand(opts, io)));
  hubOptions(
    program
      .command("grant <identity>")
      .description("Grant reader, writer or none on this contract (owner only)")
      .option("--role <role>", "reader | writer | none")
      .option("--contract <id>", "contract id (default: the working copy's)"),
  ).action(async (who, opts) => setExit(await (await import("./grantCommand.js")).grantCommand(who, opts, io)));
}

/** Registers `predicate test` and `predicate deploy` (custom WASM predicates). */
function registerPredicateCommands(program: Command, io: Io, setExit: SetExit): void {
  const predicate = program.command("predicate").description("Write, test and deploy custom WASM predicates");
  predicate
    .command("test <file>")
    .description("Run a predicate module locally with the hub's runner; prints {valid, gas_used, errors}")
    .option("--args <json>", "the predicate's arguments, a JSON array (default [])")
    .option("--state <file>", "JSON object of state paths to values (default {})")
    .option("--commit <file>", "JSON object: the commit's hash, parent, data, labels, signers, timestamp")
    .option("--contract <id>", "contract id in the input (default c_test)")
    .option("--gas-limit <n>", "gas budget (default 10000000, the hub's default)")
    // Accepted as every other command accepts it; the output is one JSON document either way.
    .option("--json", "print one JSON document (the default here)")
    .action(async (file, opts) =>
      setExit(await (await import("./predicateCommand.js")).predicateTestCommand(file, opts, io)),
    );
  commitOptions(
    predicate
      .command("deploy <name> <file>")
      .description("Commit a module at /_code/custom/<name>.wasm in this working copy (then push)"),
  ).action(async (name, file, opts) =>
    setExit(await (await import("./predicateCommand.js")).predicateDeployCommand(name, file, opts, io)),
  );
}
