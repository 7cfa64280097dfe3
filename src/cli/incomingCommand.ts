import type { IncomingSend } from "../api/responses.js";
import type { HubClient } from "../client/HubClient.js";
import type { RecvValue, SendValue } from "../contract/Commit.js";
import type { StoredCommit } from "../contract/StoredCommit.js";
import { type Cli, report, runCommand } from "./cliContext.js";
import { count } from "./count.js";
import { shortHash } from "./hashPrefix.js";
import type { Io } from "./Io.js";
import { clientFor, type HubFlags, hubUrl, readingKey } from "./workingCopy/hubAccess.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

/** Every page of the SENDs addressed to `id` (only those not yet received when `pending`), oldest first. */
export async function allIncoming(client: HubClient, id: string, pending: boolean): Promise<IncomingSend[]> {
  const sends: IncomingSend[] = [];
  for (;;) {
    const page = await client.listIncomingSends(id, { pending, offset: sends.length, limit: 1000 });
    sends.push(...page.sends);
    if (page.sends.length === 0 || sends.length >= page.total) return sends;
  }
}

/** The SENDs that the working copy's unpushed commits receive (the hub does not know of those RECVs yet). */
export function unpushedReceipts(unpushed: readonly StoredCommit[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of unpushed)
    for (const op of c.data) if (op.method === "recv") out.set((op.value as RecvValue).send_commit_id, c.hash);
  return out;
}

/** SENDs that the working copy's unpushed commits make to its own contract (receivable in the same push). */
export function unpushedSendsTo(id: string, unpushed: readonly StoredCommit[]): { hash: string; value: SendValue }[] {
  return unpushed.flatMap((c) =>
    c.data
      .filter((op) => op.method === "send" && (op.value as SendValue).to_contract === id)
      .map((op) => ({ hash: c.hash, value: op.value as SendValue })),
  );
}

/** A SEND an unpushed RECV takes: the asset as the SEND names it, and its issuer once the hub booked it. */
export interface TakenSend {
  hash: string;
  asset_id: string;
  /** Null for a SEND this working copy has not pushed yet (to its own contract). */
  issuer: string | null;
  amount: number;
}

/**
 * The SENDs the working copy's unpushed RECVs take: as the hub lists those still waiting for
 * this contract, or as unpushed SENDs to itself. Asks the hub only when there is a RECV.
 */
export async function sendsTakenByUnpushed(
  client: HubClient,
  id: string,
  unpushed: readonly StoredCommit[],
): Promise<TakenSend[]> {
  const taken = unpushedReceipts(unpushed);
  if (taken.size === 0) return [];
  const sends: TakenSend[] = [
    ...(await allIncoming(client, id, true)).map((s) => ({
      hash: s.send_commit_id,
      asset_id: s.asset_id,
      issuer: s.issuer,
      amount: s.amount,
    })),
    ...unpushedSendsTo(id, unpushed).map((s) => ({
      hash: s.hash,
      asset_id: s.value.asset_id,
      issuer: null,
      amount: s.value.amount,
    })),
  ];
  return sends.filter((s) => taken.has(s.hash));
}

/** One SEND for people: amount, asset and sender. */
export function sendText(s: { amount: number; asset_id: string; issuer: string; from_contract: string }): string {
  return `${s.amount} ${s.asset_id} (issued by ${s.issuer}) from ${s.from_contract}`;
}

/**
 * `contract-hub incoming [--all]`: the SENDs addressed to this contract that are waiting to be
 * received (every one with --all, with the RECV that took it), as the hub lists them, with
 * short hashes that `recv --send` takes back. A SEND an unpushed RECV already takes is marked.
 */
export function incomingCommand(opts: HubFlags & { all?: boolean }, io: Io): Promise<number> {
  return runCommand(io, opts, "incoming", async (cli: Cli) => {
    const wc = WorkingCopy.find(cli.cwd);
    const id = wc.config.contract_id;
    const client = clientFor(cli, hubUrl(cli, opts.hub, wc), readingKey(cli, opts.key, wc));
    const pending = opts.all !== true;
    const taken = unpushedReceipts(wc.readCommits().slice(wc.origin().length));
    const sends = (await allIncoming(client, id, pending)).map((s) => ({
      ...s,
      recv_not_pushed: taken.get(s.send_commit_id) ?? null,
    }));
    report(cli, { contract_id: id, pending, sends }, () => {
      if (sends.length === 0) return pending ? `No SENDs to ${id} are waiting to be received` : `No SENDs to ${id}`;
      const lines = sends.map((s) => {
        const status =
          s.recv_commit_id !== null
            ? `  received by ${shortHash(s.recv_commit_id)}`
            : s.recv_not_pushed !== null
              ? `  received by ${shortHash(s.recv_not_pushed)} (not pushed)`
              : "";
        return `  ${shortHash(s.send_commit_id)}  ${sendText(s)}${status}`;
      });
      const next = sends.find((s) => s.recv_commit_id === null && s.recv_not_pushed === null);
      return [
        pending
          ? `${count(sends.length, "SEND")} to ${id} waiting to be received:`
          : `${count(sends.length, "SEND")} to ${id}:`,
        ...lines,
        ...(next !== undefined ? [`Receive one with: contract-hub recv --send ${shortHash(next.send_commit_id)}`] : []),
      ];
    });
    return undefined;
  });
}
