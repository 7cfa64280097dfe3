/**
 * The asset part of `verify` (docs/assets.md, docs/storage.md): recomputes assets, balances and SENDs
 * from the logs, compares them with the store's tables, and checks the invariant "for every
 * asset, balances plus sent-not-received amounts equal the quantity, and no balance is
 * negative" on both the recomputed and the stored figures, and how each SEND is filed for its
 * recipient's incoming list (its leaf, its received marker) against its commit and receipt.
 */
import type { Store } from "../../store/Store.js";
import { assetName } from "./assetRules.js";
import { type AssetCommit, type AssetIssue, assetOps, type ReplayedAssets, replayAssets } from "./replayAssets.js";

export type { AssetIssue } from "./replayAssets.js";

/** What the check found. */
export interface AssetInvariantReport {
  ok: boolean;
  /** The contracts whose logs were replayed. */
  contracts: string[];
  assets: number;
  sends: number;
  issues: AssetIssue[];
}

/**
 * Checks the asset invariants of `store`. `ids` seeds the contracts to check (default: those
 * listed to an anonymous caller); the set is then closed over SEND recipients and the
 * senders of received SENDs, which is every contract that can hold an asset issued by one of
 * them, so the sums are complete. Pass every contract id (as `verify` does) to check all.
 */
export async function checkAssetInvariants(store: Store, ids?: readonly string[]): Promise<AssetInvariantReport> {
  const unreadable: AssetIssue[] = [];
  const sendLeaves = new Map<string, number | null>();
  const logs = await loadLogs(store, ids ?? (await publicIds(store)), unreadable, sendLeaves);
  const replay = replayAssets(logs);
  const issues = [...unreadable, ...replay.issues];
  await compareWithStore(store, [...logs.keys()], replay, issues);
  await compareFilings(store, replay, sendLeaves, issues);
  checkSums(replay, issues);
  return {
    ok: issues.length === 0,
    contracts: [...logs.keys()],
    assets: replay.assets.size,
    sends: replay.sends.size,
    issues,
  };
}

async function publicIds(store: Store): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; ) {
    const { contracts } = await store.listContracts({ identity: null, limit: 1000, offset });
    ids.push(...contracts.map((c) => c.id));
    if (contracts.length < 1000) return ids;
    offset += contracts.length;
  }
}

/** The asset commits of each contract reachable from `seeds`, in log order; each SEND commit's leaf into `sendLeaves`. */
async function loadLogs(
  store: Store,
  seeds: readonly string[],
  unreadable: AssetIssue[],
  sendLeaves: Map<string, number | null>,
): Promise<Map<string, AssetCommit[]>> {
  const logs = new Map<string, AssetCommit[]>();
  const queue = [...new Set(seeds)];
  const seen = new Set(queue);
  const reach = (id: string) => {
    if (!seen.has(id)) {
      seen.add(id);
      queue.push(id);
    }
  };
  while (queue.length > 0) {
    const id = queue.shift()!;
    const record = await store.getContract(id);
    if (record === null) continue;
    const commits: AssetCommit[] = [];
    try {
      for await (const c of store.readCommits(id, 0, record.length)) {
        const ops = assetOps(c.data);
        if (ops === null) continue;
        commits.push({ index: c.index, hash: c.hash, ops });
        if (ops.some((op) => op.method === "send")) sendLeaves.set(c.hash, c.leafIndex ?? null);
        for (const op of ops) {
          if (op.method === "send") reach((op.value as { to_contract: string }).to_contract);
          if (op.method === "recv") {
            const send = await store.getSend((op.value as { send_commit_id: string }).send_commit_id);
            if (send !== null) reach(send.from);
          }
        }
      }
    } catch (err) {
      // A row that cannot be decoded (damaged JSON) is an issue of its contract, not a crash of
      // the whole check: verify's replay names the row, the other contracts are still checked.
      unreadable.push({ contract_id: id, message: `log cannot be read: ${(err as Error).message}` });
      continue;
    }
    logs.set(id, commits);
  }
  return logs;
}

/** The stored tables must equal the recomputed ones, contract by contract and SEND by SEND. */
async function compareWithStore(store: Store, ids: string[], replay: ReplayedAssets, issues: AssetIssue[]) {
  for (const id of ids) {
    const stored = await store.getAssets(id);
    const wantAssets = [...replay.assets.values()].filter((a) => a.issuer === id);
    const gotAssets = new Map(stored.assets.map((a) => [a.assetId, a]));
    for (const a of wantAssets) {
      const got = gotAssets.get(a.assetId);
      if (got?.quantity !== a.quantity || got.divisibility !== a.divisibility)
        issues.push({
          contract_id: id,
          message: `asset ${assetName(a)}: stored ${describe(got)}, log says ${describe(a)}`,
        });
      gotAssets.delete(a.assetId);
    }
    for (const extra of gotAssets.values())
      issues.push({ contract_id: id, message: `asset ${assetName(extra)} is stored but no log creates it` });
    const want = replay.balances.get(id) ?? new Map<string, number>();
    const got = new Map(stored.balances.map((b) => [assetName(b), b.amount]));
    for (const name of new Set([...want.keys(), ...got.keys()])) {
      if (want.get(name) !== got.get(name))
        issues.push({
          contract_id: id,
          message: `balance of ${name}: stored ${got.get(name) ?? "none"}, log says ${want.get(name) ?? "none"}`,
        });
    }
  }
  for (const send of replay.sends.values()) {
    const got = await store.getSend(send.commitHash);
    const same =
      got !== null &&
      got.from === send.from &&
      got.to === send.to &&
      got.issuer === send.issuer &&
      got.assetId === send.assetId &&
      got.amount === send.amount &&
      got.receivedBy === send.receivedBy;
    if (!same)
      issues.push({
        contract_id: send.from,
        hash: send.commitHash,
        message: `SEND ${send.commitHash}: stored ${describe(got)}, log says ${describe(send)}`,
      });
  }
}

/**
 * How each SEND is filed for its recipient's incoming list (docs/storage.md) must agree with
 * what it is derived from: its leaf with its commit's leaf (a wrong one lists it out of order),
 * its received marker with its receipt (a wrong one lists a received SEND as pending, or hides
 * a pending one).
 */
async function compareFilings(
  store: Store,
  replay: ReplayedAssets,
  sendLeaves: ReadonlyMap<string, number | null>,
  issues: AssetIssue[],
): Promise<void> {
  for (const send of replay.sends.values()) {
    const filed = await store.getSendFiling(send.commitHash);
    // A SEND row that is missing is already an issue of compareWithStore.
    if (filed === null) continue;
    const at = { contract_id: send.from, hash: send.commitHash };
    const leaf = sendLeaves.get(send.commitHash) ?? null;
    if (filed.leafIndex !== leaf)
      issues.push({
        ...at,
        message: `SEND ${send.commitHash}: stored at leaf ${filed.leafIndex}, its commit is leaf ${leaf}`,
      });
    const receipt = (await store.getSend(send.commitHash))?.receivedBy ?? null;
    if (filed.received !== (receipt !== null))
      issues.push({
        ...at,
        message: `SEND ${send.commitHash}: marked ${filed.received ? "received" : "not received"}, ${receipt === null ? "no receipt is stored" : `its receipt (${receipt}) is stored`}`,
      });
  }
}

/** Balances plus sent-not-received equal the quantity; nothing is negative. */
function checkSums(replay: ReplayedAssets, issues: AssetIssue[]): void {
  const total = new Map<string, number>();
  for (const [holder, held] of replay.balances) {
    for (const [name, amount] of held) {
      if (amount < 0) issues.push({ contract_id: holder, message: `negative balance ${amount} of ${name}` });
      total.set(name, (total.get(name) ?? 0) + amount);
    }
  }
  for (const s of replay.sends.values())
    if (s.receivedBy === null) total.set(assetName(s), (total.get(assetName(s)) ?? 0) + s.amount);
  for (const [name, a] of replay.assets) {
    const sum = total.get(name) ?? 0;
    if (sum !== a.quantity)
      issues.push({
        contract_id: a.issuer,
        message: `asset ${name}: balances plus pending SENDs are ${sum}, the quantity is ${a.quantity}`,
      });
  }
}

function describe(v: unknown): string {
  return v === null || v === undefined ? "nothing" : JSON.stringify(v);
}
