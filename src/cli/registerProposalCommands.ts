import type { Command } from "commander";
import type { Io } from "./Io.js";
import { TIMEOUT_HELP } from "./workingCopy/hubTimeout.js";
import { collect } from "./workingCopy/identities.js";

type SetExit = (code: number) => void;

const load = () => import("./proposalCommands.js");

/** Adds `--hub`, `--key`, `--timeout` and `--json`. */
function hubOptions(cmd: Command): Command {
  return cmd
    .option("--hub <url>", "hub URL (default: the working copy's hub, then HUB_URL)")
    .option("--timeout <ms>", TIMEOUT_HELP)
    .option("--key <name>", "key from the key directory (default: remembered, then default, then the only key)")
    .option("--json", "print one JSON document");
}

/** Registers propose, proposals, sign and withdraw (co-signing a commit across machines). */
export function registerProposalCommands(program: Command, io: Io, setExit: SetExit): void {
  hubOptions(
    program
      .command("propose [value]")
      .description("Propose a commit that needs other parties' signatures (the flags of commit)")
      .option("--post <path>", "post VALUE at a state path")
      .option("--model <file>", "replace the model")
      .option("--rule <file>", "add a rule (repeatable)", collect)
      .option("--rule-name <name>", "rule path name (default: the file's base name)")
      .option("--action <label>", "add an action operation (repeatable)", collect)
      .option("--sign <name>", "key that signs the proposal (repeatable; default: --key)", collect),
  ).action(async (value, opts) => setExit(await (await load()).proposeCommand(value, opts, io)));
  hubOptions(
    program
      .command("proposals")
      .description("Open proposals, with who has signed and who still must")
      .option("--status <status>", "open (default), committed, stale, withdrawn or expired"),
  ).action(async (opts) => setExit(await (await load()).proposalsCommand(opts, io)));
  hubOptions(
    program
      .command("sign <hash>")
      .description("Check, show and sign a proposal (hash or unique prefix); the hub appends it once complete")
      .option("--sign <name>", "key that signs (repeatable; default: --key)", collect),
  ).action(async (hash, opts) => setExit(await (await load()).signCommand(hash, opts, io)));
  hubOptions(
    program.command("withdraw <hash>").description("Withdraw a proposal you made (or, as owner, any proposal)"),
  ).action(async (hash, opts) => setExit(await (await load()).withdrawCommand(hash, opts, io)));
}
