/**
 * Recomputes the asset tables from the contracts' logs alone (docs/assets.md, docs/storage.md verify).
 * Each contract's asset operations are replayed in log order; a RECV waits until the SEND it
 * names has been replayed in its own contract, which is always possible for a history the
 * hub produced (a SEND is stored before it can be received). SENDs are resolved with the
 * same rule as the ledger (assetRules.ts), so both arrive at the same asset.
 */
import type { CreateValue, Operation, RecvValue, SendValue } from "../../contract/Commit.js";
import type { AssetRecord, SendRecord } from "../../store/Store.js";
import { type AssetKey, assetName, resolveSendAsset } from "./assetRules.js";

/** A commit's asset operations (create, send, recv) with its position. */
export interface AssetCommit {
  index: number;
  hash: string;
  ops: Operation[];
}

/** Something the replay found wrong; `contract_id`/`index` locate the commit when there is one. */
export interface AssetIssue {
  contract_id: string | null;
  index?: number;
  hash?: string;
  message: string;
}

/** The asset tables as the logs say they should be. */
export interface ReplayedAssets {
  /** Keyed `issuer/asset_id`. */
  assets: Map<string, AssetRecord>;
  /** Holder → `issuer/asset_id` → amount (a row exists once the holder was credited). */
  balances: Map<string, Map<string, number>>;
  sends: Map<string, SendRecord>;
  issues: AssetIssue[];
}

/** The asset operations of a commit's data, or null when it has none. */
export function assetOps(data: readonly Operation[]): Operation[] | null {
  const ops = data.filter((op) => op.method === "create" || op.method === "send" || op.method === "recv");
  return ops.length === 0 ? null : ops;
}

/** Replays `logs` (contract id → its commits with asset operations, in log order). */
export function replayAssets(logs: ReadonlyMap<string, readonly AssetCommit[]>): ReplayedAssets {
  const out: ReplayedAssets = { assets: new Map(), balances: new Map(), sends: new Map(), issues: [] };
  const logged = new Set<string>();
  for (const commits of logs.values())
    for (const c of commits) if (c.ops.some((op) => op.method === "send")) logged.add(c.hash);
  const cursor = new Map([...logs.keys()].map((id) => [id, 0]));
  for (let progress = true; progress; ) {
    progress = false;
    for (const [id, commits] of logs) {
      let at = cursor.get(id)!;
      // A RECV of a logged SEND not replayed yet waits; any other commit can be applied now.
      while (at < commits.length && ready(commits[at]!, logged, out.sends))
        applyCommit(out, id, commits[at++]!, logged);
      if (at !== cursor.get(id)) progress = true;
      cursor.set(id, at);
    }
  }
  for (const [id, commits] of logs) {
    const c = commits[cursor.get(id)!];
    if (c !== undefined)
      out.issues.push({
        contract_id: id,
        index: c.index,
        hash: c.hash,
        message: "RECV waits for a SEND that never replays (cyclic history)",
      });
  }
  return out;
}

function ready(c: AssetCommit, logged: ReadonlySet<string>, sends: ReadonlyMap<string, SendRecord>): boolean {
  return c.ops.every((op) => {
    if (op.method !== "recv") return true;
    const hash = (op.value as RecvValue).send_commit_id;
    return !logged.has(hash) || sends.has(hash);
  });
}

function applyCommit(out: ReplayedAssets, id: string, c: AssetCommit, logged: ReadonlySet<string>): void {
  const issue = (message: string) => out.issues.push({ contract_id: id, index: c.index, hash: c.hash, message });
  const held = holdings(out, id);
  for (const op of c.ops) {
    if (op.method === "create") {
      const v = op.value as CreateValue;
      const key = assetName({ issuer: id, assetId: v.asset_id });
      if (out.assets.has(key)) {
        issue(`CREATE of ${key}, which already exists`);
        continue;
      }
      out.assets.set(key, { issuer: id, assetId: v.asset_id, quantity: v.quantity, divisibility: v.divisibility });
      held.set(key, (held.get(key) ?? 0) + v.quantity);
    } else if (op.method === "send") {
      const v = op.value as SendValue;
      const resolved = resolveSendAsset(id, v.asset_id, (assetId) => ({
        issuedBySender: out.assets.has(assetName({ issuer: id, assetId })),
        foreign: [...held.entries()].flatMap(([name, amount]) => {
          const key = parseName(name);
          return key.assetId === assetId && key.issuer !== id ? [{ issuer: key.issuer, amount }] : [];
        }),
      }));
      if ("failure" in resolved) {
        issue(`SEND of ${v.asset_id}, which the contract does not hold unambiguously`);
        continue;
      }
      const key = assetName(resolved.key);
      const asset = out.assets.get(key);
      const balance = held.get(key);
      if (asset === undefined || balance === undefined || balance < v.amount || v.amount % asset.divisibility !== 0) {
        issue(`SEND of ${v.amount} ${key} with a balance of ${balance ?? 0}`);
        continue;
      }
      held.set(key, balance - v.amount);
      out.sends.set(c.hash, {
        commitHash: c.hash,
        from: id,
        to: v.to_contract,
        ...resolved.key,
        amount: v.amount,
        receivedBy: null,
      });
    } else if (op.method === "recv") {
      const hash = (op.value as RecvValue).send_commit_id;
      const send = out.sends.get(hash);
      if (send === undefined) {
        issue(
          logged.has(hash) ? `RECV of the invalid SEND ${hash}` : `RECV of SEND ${hash}, which no checked log holds`,
        );
      } else if (send.to !== id) {
        issue(`RECV of SEND ${hash}, which was sent to ${send.to}`);
      } else if (send.receivedBy !== null) {
        issue(`RECV of SEND ${hash}, already received by ${send.receivedBy}`);
      } else {
        send.receivedBy = c.hash;
        const key = assetName(send);
        held.set(key, (held.get(key) ?? 0) + send.amount);
      }
    }
  }
}

function holdings(out: ReplayedAssets, id: string): Map<string, number> {
  let held = out.balances.get(id);
  if (held === undefined) out.balances.set(id, (held = new Map()));
  return held;
}

/** `issuer/asset_id` back to its parts (contract ids contain no `/`). */
export function parseName(name: string): AssetKey {
  const slash = name.indexOf("/");
  return { issuer: name.slice(0, slash), assetId: name.slice(slash + 1) };
}
