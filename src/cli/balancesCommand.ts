import type { Operation, SendValue } from "../contract/Commit.js";
import type { StoredCommit } from "../contract/StoredCommit.js";
import { type Cli, report, runCommand } from "./cliContext.js";
import type { Io } from "./Io.js";
import { sendsTakenByUnpushed, type TakenSend } from "./incomingCommand.js";
import { clientFor, type HubFlags, hubUrl, readingKey } from "./workingCopy/hubAccess.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

/** A contract's books as `GET /contracts/:id/assets` answers them, all pages together. */
export interface AssetsDoc {
  contract_id: string;
  assets: { asset_id: string; issuer: string; quantity: number; divisibility: number }[];
  balances: { asset_id: string; issuer: string; amount: number }[];
}

/**
 * `contract-hub balances`: what this contract holds, as the hub books it, and what the
 * working copy's unpushed commits would change (`pending`: creates add, sends subtract,
 * receipts add what their SENDs carry, under `issuer/asset_id` once the hub booked the SEND).
 */
export function balancesCommand(opts: HubFlags, io: Io): Promise<number> {
  return runCommand(io, opts, "balances", async (cli: Cli) => {
    const wc = WorkingCopy.find(cli.cwd);
    const unpushed = wc.readCommits().slice(wc.origin().length);
    const client = clientFor(cli, hubUrl(cli, opts.hub, wc), readingKey(cli, opts.key, wc));
    const [hub, taken] = await Promise.all([
      hubAssets(cli, opts, wc),
      sendsTakenByUnpushed(client, wc.config.contract_id, unpushed),
    ]);
    const pending = withReceipts(pendingChanges(unpushed), taken);
    const doc = { ...hub, pending };
    report(cli, doc, () =>
      hub.balances.length === 0 && pending.length === 0
        ? ["No assets held"]
        : [
            ...hub.balances.map((b) => `${b.amount.toString().padStart(12)}  ${b.asset_id}  (issued by ${b.issuer})`),
            ...pending.map(
              (p) => `${`${p.change > 0 ? "+" : ""}${p.change}`.padStart(12)}  ${p.asset_id}  (not pushed)`,
            ),
          ],
    );
    return undefined;
  });
}

/** The hub's asset books of the working copy's contract, whole: every page the hub answers them in. */
export async function hubAssets(cli: Cli, opts: HubFlags, wc: WorkingCopy, signal?: AbortSignal): Promise<AssetsDoc> {
  const client = clientFor(cli, hubUrl(cli, opts.hub, wc), readingKey(cli, opts.key, wc), signal);
  const { contract_id, assets, balances } = await client.getAllAssets(wc.config.contract_id);
  return { contract_id, assets, balances };
}

/** `changes` with what each taken SEND brings in added (an unpushed SEND to itself under the name it was sent by). */
function withReceipts(
  changes: { asset_id: string; change: number }[],
  taken: readonly TakenSend[],
): { asset_id: string; change: number }[] {
  const by = new Map(changes.map((c) => [c.asset_id, c.change]));
  for (const s of taken) {
    const name = s.issuer === null ? s.asset_id : `${s.issuer}/${s.asset_id}`;
    by.set(name, (by.get(name) ?? 0) + s.amount);
  }
  return [...by].map(([asset_id, change]) => ({ asset_id, change }));
}

/** Net change per asset name of unpushed commits: CREATE adds its quantity, SEND subtracts its amount. */
export function pendingChanges(unpushed: readonly StoredCommit[]): { asset_id: string; change: number }[] {
  const change = new Map<string, number>();
  const ops: Operation[] = unpushed.flatMap((c) => c.data);
  for (const op of ops) {
    if (op.method === "create") {
      const v = op.value as { asset_id: string; quantity: number };
      change.set(v.asset_id, (change.get(v.asset_id) ?? 0) + v.quantity);
    } else if (op.method === "send") {
      const v = op.value as SendValue;
      change.set(v.asset_id, (change.get(v.asset_id) ?? 0) - v.amount);
    }
  }
  return [...change].map(([asset_id, c]) => ({ asset_id, change: c }));
}
