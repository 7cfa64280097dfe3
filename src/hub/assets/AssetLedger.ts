/**
 * The hub's asset ledger for one write (docs/assets.md): it implements the engine's
 * AssetHooks over the store and collects the AssetEffect[] that the append writes in the
 * same transaction as the commits. Effects of earlier operations and commits of the same
 * write are applied to an in-memory overlay, so a CREATE followed by a SEND in one push
 * (or one commit) sees the new balance.
 *
 * It reads only the rows an operation names (an asset by its key, a holder's balances of one
 * asset id), never a contract's whole books: SQLite reads run on the event loop, and a
 * contract may have issued or hold any number of assets (docs/security.md, hostile load).
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

/** A balance as this write sees it (moved in place by its SENDs and credits). */
interface Balance {
  key: AssetKey;
  amount: number;
}

/** AssetHooks over a store snapshot, collecting the effects of one append. */
export class AssetLedger implements AssetHooks {
  /** Effects of every accepted asset operation, in order. */
  readonly effects: AssetEffect[] = [];
  private readonly store: Store;
  private readonly readSource: RepostSource;
  private readonly creating: string | undefined;
  /** Assets read or created, by `issuer/asset_id` (null: read, and absent). */
  private readonly assets = new Map<string, AssetRecord | null>();
  /** Per holder, balances read or moved, by `issuer/asset_id` (null: read, and no row). */
  private readonly balances = new Map<string, Map<string, Balance | null>>();
  /** `holder` + asset id pairs whose balances of every issuer were read. */
  private readonly named = new Set<string>();
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
    const key = { issuer: contractId, assetId: v.asset_id };
    if ((await this.asset(key)) !== null) {
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
    const record = { ...key, quantity: v.quantity, divisibility: v.divisibility };
    this.assets.set(assetName(key), record);
    await this.credit(contractId, key, v.quantity);
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
    // A plain id is the sender's own asset when it issued one (then its other holdings of
    // that id are not asked for), else one of the foreign assets of that id it holds.
    const plain = !v.asset_id.includes("/");
    const issuedBySender = plain && (await this.asset({ issuer: from, assetId: v.asset_id })) !== null;
    const foreign =
      plain && !issuedBySender
        ? (await this.heldNamed(from, v.asset_id))
            .filter((b) => b.key.issuer !== from)
            .map((b) => ({ issuer: b.key.issuer, amount: b.amount }))
        : [];
    const resolved = resolveSendAsset(from, v.asset_id, () => ({ issuedBySender, foreign }));
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
    const asset = await this.asset(key);
    const balance = await this.balance(from, key);
    if (asset === null || balance === null) {
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

  /** The asset `key` (stored, or created by this write), or null. */
  private async asset(key: AssetKey): Promise<AssetRecord | null> {
    const name = assetName(key);
    const known = this.assets.get(name);
    if (known !== undefined) return known;
    // A contract this write creates has no stored rows yet.
    const stored = key.issuer === this.creating ? null : await this.store.getAsset(key.issuer, key.assetId);
    // Another check may have read or created it while this one awaited: keep that.
    if (!this.assets.has(name)) this.assets.set(name, stored);
    return this.assets.get(name)!;
  }

  /** `holder`'s books as this write has read and moved them. */
  private booksOf(holder: string): Map<string, Balance | null> {
    let books = this.balances.get(holder);
    if (books === undefined) this.balances.set(holder, (books = new Map()));
    return books;
  }

  /** `holder`'s balance of `key` (stored, moved by this write), or null when it never held it. */
  private async balance(holder: string, key: AssetKey): Promise<Balance | null> {
    const books = this.booksOf(holder);
    const name = assetName(key);
    const known = books.get(name);
    if (known !== undefined) return known;
    const [row] = holder === this.creating ? [] : await this.store.getBalancesNamed(holder, key.assetId, key.issuer);
    if (!books.has(name)) books.set(name, row === undefined ? null : { key, amount: row.amount });
    return books.get(name)!;
  }

  /** `holder`'s balances of every asset with the id `assetId` (stored, moved by this write). */
  private async heldNamed(holder: string, assetId: string): Promise<Balance[]> {
    const books = this.booksOf(holder);
    const pair = `${holder}\n${assetId}`;
    if (!this.named.has(pair)) {
      const rows = holder === this.creating ? [] : await this.store.getBalancesNamed(holder, assetId);
      // Entries this write read or moved already are newer than the stored rows.
      for (const r of rows) {
        const key = { issuer: r.issuer, assetId: r.assetId };
        if (!books.has(assetName(key))) books.set(assetName(key), { key, amount: r.amount });
      }
      this.named.add(pair);
    }
    return [...books.values()].filter((b): b is Balance => b !== null && b.key.assetId === assetId);
  }

  private async credit(holder: string, key: AssetKey, amount: number): Promise<void> {
    const entry = await this.balance(holder, key);
    if (entry === null) this.booksOf(holder).set(assetName(key), { key, amount });
    else entry.amount += amount;
  }
}
