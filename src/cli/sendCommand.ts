import { type Cli, runCommand } from "./cliContext.js";
import type { Io } from "./Io.js";
import { type CommitFlags, commitLocally } from "./workingCopy/commitLocally.js";
import { positiveInteger, required } from "./workingCopy/numbers.js";

/**
 * `contract-hub send --asset ID --to CONTRACT --amount N`: a SEND commit (PROTOCOL.md §6).
 * Balances are the hub's to check at push (they span contracts); the model and rules are checked here.
 */
export function sendCommand(
  opts: CommitFlags & { asset?: string; to?: string; amount?: string },
  io: Io,
): Promise<number> {
  return runCommand(io, opts, "send", async (cli: Cli) => {
    const value = {
      asset_id: required(opts.asset, "--asset"),
      to_contract: required(opts.to, "--to"),
      amount: positiveInteger(opts.amount, "--amount"),
    };
    await commitLocally(cli, opts, [{ method: "send", value }]);
    return undefined;
  });
}
