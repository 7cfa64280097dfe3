import { type Cli, runCommand } from "./cliContext.js";
import type { Io } from "./Io.js";
import { type CommitFlags, commitLocally } from "./workingCopy/commitLocally.js";
import { positiveInteger, required } from "./workingCopy/numbers.js";

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
    await commitLocally(cli, opts, [{ method: "create", value }]);
    return undefined;
  });
}
