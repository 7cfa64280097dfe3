/**
 * The hub's asset ledger for one write (docs/assets.md): it implements the engine's
 * AssetHooks over the store and collects the AssetEffect[] that the append writes in the
 * same transaction as the commits. Effects of earlier operations and commits of the same
 * write are applied to an in-memory overlay, so a CREATE followed by a SEND in one push
 * (or one commit) sees the new balance.
 *
 * Why reading the store is sound: every balance change of a contract is a commit of that
 * contract (CREATE and RECV credit it, SEND debits it), asset records and SEND records never
 * change, and a SEND's receipt is a commit of its recipient. The hub validates a contract's
 * commits under that contract's lock and the store appends only at the head validated
 * against, so the facts read here cannot change before the append; the store's UNIQUE
 * receipt and non-negative balance constraints catch anything that slips past.
 */
import type { CreateValue, Operation, RecvValue, SendValue } from "../../contract/Commit.js";
import { canonicalize } from "../../contract/canonicalJson.js";
import type { AssetHooks, AssetOperation } from "../../contract/EngineContext.js";
import type { AppendExtras, AssetEffect, AssetRecord, SendRecord, Store } from "../../store/Store.js";
import { type AssetKey, assetName, assetReject, notHeldReason, resolveSendAsset } from "./assetRules.js";

/** A REPOST source's latest state as the submitter may see it, or null when absent or unreadable (-32010). */
export type RepostSource = (contractId: string) => Promise<ReadonlyMap<string, unknown> | null>;

export interface AssetLedgerOptions {
  store: Store;
  /** Reads REPOST sources (with the submitter's read access applied). */
  readSource: RepostSource;
  /** A contract created by the same append (its row is not stored yet, but it exists). */
  creating?: string;
}

const REPOST_PATH = /^\/reposts\/([^/]+)(\/.*)$/;

/** AssetHooks over a store snapshot, collecting the effects of one append. */
export class AssetLedger implements AssetHooks {
  /** Effects of every accepted asset operation, in order. */
  readonly effects: AssetEffect[] = [];
  private readonly store: Store;
  private readonly readSource: RepostSource;
  private readonly creating: string | undefined;
  private readonly issued = new Map<string, Map<string, AssetRecord>>();
  private readonly balances = new Map<string, Map<string, { key: AssetKey; amount: number }>>();
  private readonly sends = new Map<string, SendRecord>();

  constructor(options: AssetLedgerOptions) {
    this.store = options.store;
    this.readSource = options.readSource;
    this.creating = options.creating;
  }

  /** The append extras carrying the collected effects (merged into `extras`). */
  extras(extras: AppendExtras = {}): AppendExtras {
    return this.effects.length === 0 ? extras : { ...extras, assetEffects: [...this.effects] };
  }

  /** Checks a commit's asset operations in order (AssetHooks); throws the first failure. */
  async check(contractId: string, commitHash: string, ops: AssetOperation[]): Promise<void> {
    let sends = 0;
    for (const { op } of ops) {
      if (op.method === "send" && ++sends > 1) {
        // RECV names a SEND by its commit hash, so a commit can carry only one.
        assetReject("SEND", "a commit carries at most one send operation", -32602, "multiple_sends");
      }
      await this.checkOne(contractId, commitHash, op);
    }
  }

  private async checkOne(contractId: string, commitHash: string, op: Operation): Promise<void> {
    switch (op.method) {
      case "create":
        return this.create(contractId, commitHash, op.value as CreateValue);
      case "send":
        return this.send(contractId, commitHash, op.value as SendValue);
      case "recv":
        return this.recv(contractId, commitHash, op.value as RecvValue);
      case "repost":
        return this.repost(op);
      default:
        return;
    }
  }

  private async create(contractId: string, commitHash: string, v: CreateValue): Promise<void> {
    const issued = await this.issuedBy(contractId);
    if (issued.has(v.asset_id)) {
      assetReject(
        "CREATE",
        `asset ${JSON.stringify(v.asset_id)} already exists in contract ${contractId}`,
        -32040,
        "asset_exists",
        {
          asset_id: v.asset_id,
        },
      );
    }
    const record = { issuer: contractId, assetId: v.asset_id, quantity: v.quantity, divisibility: v.divisibility };
    issued.set(v.asset_id, record);
    await this.credit(contractId, { issuer: contractId, assetId: v.asset_id }, v.quantity);
    this.effects.push({ kind: "create", ...record, commitHash });
  }

  private async send(from: string, commitHash: string, v: SendValue): Promise<void> {
    // Order of docs/assets.md ("Checks and codes, in order"): -32020 (checked with the shape), -32021, -32025, -32022, -32023, -32024.
    if (!(await this.exists(from)))
      assetReject("SEND", `sender contract ${from} not found`, -32021, "sender_not_found");
    if (!(await this.exists(v.to_contract))) {
      assetReject("SEND", `recipient contract ${v.to_contract} not found`, -32025, "recipient_not_found", {
        to_contract: v.to_contract,
      });
    }
    const held = await this.heldBy(from);
    const issuedBySender = (await this.issuedBy(from)).has(v.asset_id);
    const resolved = resolveSendAsset(from, v.asset_id, (id) => ({
      issuedBySender,
      foreign: [...held.values()]
        .filter((b) => b.key.assetId === id && b.key.issuer !== from)
        .map((b) => ({
          issuer: b.key.issuer,
          amount: b.amount,
        })),
    }));
    if ("failure" in resolved) {
      assetReject(
        "SEND",
        notHeldReason(from, v.asset_id, resolved.failure, resolved.candidates),
        -32022,
        resolved.failure === "ambiguous" ? "asset_ambiguous" : "asset_not_found",
        { candidates: resolved.candidates },
      );
    }
    const key = resolved.key;
    const asset = (await this.issuedBy(key.issuer)).get(key.assetId);
    const balance = held.get(assetName(key));
    if (asset === undefined || balance === undefined) {
      assetReject("SEND", `asset ${assetName(key)} not found in contract ${from}`, -32022, "asset_not_found");
    }
    if (v.amount % asset.divisibility !== 0) {
      assetReject(
        "SEND",
        `amount ${v.amount} is not divisible by the divisibility ${asset.divisibility} of ${assetName(key)}`,
        -32023,
        "divisibility",
        { amount: v.amount, divisibility: asset.divisibility },
      );
    }
    if (balance.amount < v.amount) {
      assetReject(
        "SEND",
        `insufficient balance of ${assetName(key)} in contract ${from}: have ${balance.amount}, need ${v.amount}`,
        -32024,
        "insufficient_balance",
        { asset: assetName(key), balance: balance.amount, amount: v.amount },
      );
    }
    balance.amount -= v.amount;
    const record = { commitHash, from, to: v.to_contract, ...key, amount: v.amount };
    this.sends.set(commitHash, { ...record, receivedBy: null });
    this.effects.push({ kind: "send", ...record });
  }

  private async recv(contractId: string, commitHash: string, v: RecvValue): Promise<void> {
    const hash = v.send_commit_id;
    const send: SendRecord | null = this.sends.get(hash) ?? (await this.store.getSend(hash));
    if (send === null)
      assetReject("RECV", `SEND ${hash} not found`, -32030, "send_not_found", { send_commit_id: hash });
    if (send.to !== contractId) {
      assetReject(
        "RECV",
        `contract ${contractId} is not the recipient of SEND ${hash}, which was sent to ${send.to}`,
        -32031,
        "wrong_recipient",
        { to_contract: send.to },
      );
    }
    if (send.receivedBy !== null) {
      assetReject(
        "RECV",
        `SEND ${hash} was already received by commit ${send.receivedBy}`,
        -32032,
        "already_received",
        { received_by: send.receivedBy },
      );
    }
    this.sends.set(hash, { ...send, receivedBy: commitHash });
    await this.credit(contractId, { issuer: send.issuer, assetId: send.assetId }, send.amount);
    this.effects.push({ kind: "recv", sendCommitHash: hash, recvCommitHash: commitHash, contractId });
  }

  private async repost(op: Operation): Promise<void> {
    const m = REPOST_PATH.exec(op.path ?? "");
    // The path rules (docs/language.md) already refused any other shape.
    if (m === null) return;
    const [, source, path] = m as unknown as [string, string, string];
    const data = await this.readSource(source);
    if (data === null)
      assetReject("REPOST", `source contract ${source} not found`, -32010, "source_not_found", { source });
    if (!data.has(path))
      assetReject("REPOST", `path ${path} not found in source contract ${source}`, -32011, "source_path_not_found", {
        source,
        path,
      });
    if (canonicalize(data.get(path)) !== canonicalize(op.value)) {
      assetReject(
        "REPOST",
        `value does not match the latest value of ${path} in source contract ${source}`,
        -32012,
        "value_mismatch",
        { source, path },
      );
    }
  }

  private async exists(id: string): Promise<boolean> {
    return id === this.creating || (await this.store.getContract(id)) !== null;
  }

  /** Assets issued by `issuer` (stored, plus those created by this write). */
  private async issuedBy(issuer: string): Promise<Map<string, AssetRecord>> {
    await this.load(issuer);
    return this.issued.get(issuer)!;
  }

  /** Balances held by `holder`, keyed `issuer/asset_id` (stored, moved by this write). */
  private async heldBy(holder: string): Promise<Map<string, { key: AssetKey; amount: number }>> {
    await this.load(holder);
    return this.balances.get(holder)!;
  }

  private async load(id: string): Promise<void> {
    if (this.issued.has(id)) return;
    const stored = id === this.creating ? { assets: [], balances: [] } : await this.store.getAssets(id);
    // Another call may have loaded it while we awaited; keep the first (it may have moved).
    if (this.issued.has(id)) return;
    this.issued.set(id, new Map(stored.assets.map((a) => [a.assetId, a])));
    const held = new Map<string, { key: AssetKey; amount: number }>();
    for (const b of stored.balances) {
      const key = { issuer: b.issuer, assetId: b.assetId };
      held.set(assetName(key), { key, amount: b.amount });
    }
    this.balances.set(id, held);
  }

  private async credit(holder: string, key: AssetKey, amount: number): Promise<void> {
    const held = await this.heldBy(holder);
    const entry = held.get(assetName(key));
    if (entry === undefined) held.set(assetName(key), { key, amount });
    else entry.amount += amount;
  }
}
