import { type Cli, runCommand } from "./cliContext.js";
import type { Io } from "./Io.js";
import { checkCreateLocally } from "./workingCopy/checkCreateLocally.js";
import { type CommitFlags, commitLocally } from "./workingCopy/commitLocally.js";
import { positiveInteger, required } from "./workingCopy/numbers.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

/** `contract-hub create --asset ID --quantity N --divisibility D`: a CREATE commit minting an asset in this contract. */
export function createCommand(
  opts: CommitFlags & { asset?: string; quantity?: string; divisibility?: string },
  io: Io,
): Promise<number> {
  return runCommand(io, opts, "create", async (cli: Cli) => {
    const value = {
      asset_id: required(opts.asset, "--asset"),
      quantity: positiveInteger(opts.quantity, "--quantity"),
      divisibility: positiveInteger(opts.divisibility ?? "1", "--divisibility"),
    };
    const wc = WorkingCopy.find(cli.cwd);
    checkCreateLocally(wc.config.contract_id, wc.readCommits(), wc.origin().length, value.asset_id);
    await commitLocally(cli, opts, [{ method: "create", value }]);
    return undefined;
  });
}
