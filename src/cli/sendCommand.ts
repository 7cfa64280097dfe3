import { ContractError } from "../contract/ContractError.js";
import { hubAssets, pendingChanges } from "./balancesCommand.js";
import { type Cli, runCommand } from "./cliContext.js";
import type { Io } from "./Io.js";
import { type CommitFlags, commitLocally } from "./workingCopy/commitLocally.js";
import { positiveInteger, required } from "./workingCopy/numbers.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

/**
 * `contract-hub send --asset ID --to CONTRACT --amount N`: a SEND commit. The model and rules
 * are checked here, and so is the balance as far as it can be known: the hub's books plus
 * the working copy's unpushed creates and sends. An overdraw is refused before it is
 * written, instead of sinking the whole push later. When the hub cannot be asked, the hub
 * checks the balance at push.
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
    const available = await knownBalance(cli, opts.key, value.asset_id);
    if (available !== null && value.amount > available) {
      throw new ContractError(
        "VALIDATION_FAILED",
        `SEND rejected: ${value.amount} ${value.asset_id} is more than this contract holds (${available}, counting unpushed commits)`,
        { reason: "insufficient_balance", asset_id: value.asset_id, amount: value.amount, available },
      );
    }
    await commitLocally(cli, opts, [{ method: "send", value }]);
    return undefined;
  });
}

/**
 * The balance of `asset` this contract will have after its unpushed commits: the hub's
 * booked amount (by `issuer/asset_id`, the contract's own asset, or the one held asset of
 * that id) plus pending creates and sends. Null when it cannot be known.
 */
async function knownBalance(cli: Cli, key: string | undefined, asset: string): Promise<number | null> {
  const wc = WorkingCopy.find(cli.cwd);
  let books: Awaited<ReturnType<typeof hubAssets>>;
  try {
    books = await Promise.race([
      hubAssets(cli, { ...(key !== undefined ? { key } : {}) }, wc),
      new Promise<never>((_, fail) => setTimeout(() => fail(new Error("timeout")), 2000).unref()),
    ]);
  } catch {
    return null;
  }
  const own = wc.config.contract_id;
  const byName = books.balances.filter((b) => b.asset_id === asset);
  const held =
    books.balances.find((b) => `${b.issuer}/${b.asset_id}` === asset) ??
    byName.find((b) => b.issuer === own) ??
    (byName.length === 1 ? byName[0] : undefined);
  const pending = pendingChanges(wc.readCommits().slice(wc.origin().length)).find((p) => p.asset_id === asset);
  if (held === undefined && pending === undefined) return null;
  return (held?.amount ?? 0) + (pending?.change ?? 0);
}
