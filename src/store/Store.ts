/**
 * The hub's storage interface (docs/storage.md). Every method is async so a PostgreSQL
 * implementation (network round trips) satisfies the same contract as the embedded SQLite
 * one. The store never decides validity: it persists what the engine accepted, checks the
 * head atomically with the write (cross-process fork prevention) and enforces the few
 * invariants a database can enforce (unique positions and hashes, one receipt per SEND).
 */
import type { StoredCommit } from "../contract/StoredCommit.js";
import type { NodeId } from "../tlog/merkle.js";
import type { ProposalRecord, ProposalStatus } from "./ProposalRecord.js";

export type { ProposalRecord, ProposalStatus, StoredProposalStatus } from "./ProposalRecord.js";

/** A contract's row: identity, position of its head, privacy. */
export interface ContractRecord {
  id: string;
  /** Owner identity, lower-case hex (no `ed25519:` prefix). */
  owner: string;
  /** Creation time (genesis receipt), integer seconds. */
  createdAt: number;
  head: string;
  /** Number of stored commits, genesis included. */
  length: number;
  /** True when created with `readers` (docs/api.md). */
  private: boolean;
}

/** What `appendCommits` needs to create the contract row along with its genesis. */
export interface NewContract {
  owner: string;
  createdAt: number;
  private: boolean;
  /** Initial readers (identities, lower-case hex), stored as `reader` grants. */
  readers?: string[];
}

/** A grant of docs/api.md `POST /contracts/:id/grant`; `none` removes one. */
export type GrantRole = "reader" | "writer";

/**
 * Asset effects written in the same transaction as the commits that cause them
 * (docs/assets.md). The asset issue computes them; the store applies them and its
 * constraints (non-negative balances, one receipt per SEND) are the last line of defence.
 */
export type AssetEffect =
  | { kind: "create"; issuer: string; assetId: string; quantity: number; divisibility: number; commitHash: string }
  | {
      kind: "send";
      commitHash: string;
      from: string;
      to: string;
      issuer: string;
      assetId: string;
      amount: number;
    }
  | { kind: "recv"; sendCommitHash: string; recvCommitHash: string; contractId: string };

/** Extra writes of one `appendCommits` call, committed atomically with its commits. */
export interface AppendExtras {
  /** Create the contract row (required when `expectedHead` is null). */
  contract?: NewContract;
  assetEffects?: AssetEffect[];
  /**
   * The identities these commits store at `.id` paths (last write per path), kept in the
   * party index so `listContracts` shows private contracts to their parties (docs/api.md).
   */
  parties?: PartyPath[];
  /** The proposal these commits complete: marked committed, with its final signatures, in the same transaction. */
  proposal?: { hash: string; signatures: Record<string, string> };
  /**
   * The nonce of the request that causes the append, recorded as `useNonce` would, in the
   * same transaction: one durable write per request, and a replay can never append (when the
   * nonce was already used, UNAUTHORIZED `replayed_nonce` and nothing is stored).
   */
  nonce?: RequestNonce;
}

/** A request nonce to record: the signing access key, the nonce, and until when (seconds) it is kept. */
export interface RequestNonce {
  accessKey: string;
  nonce: string;
  expiresAt: number;
}

/** One `.id` path of a contract and the identity (lower-case hex) now stored there. */
export interface PartyPath {
  path: string;
  identity: string;
}

/** Where a commit sits: its contract, its index there and its leaf in the hub's tree. */
export interface LeafRecord {
  contractId: string;
  index: number;
  leafIndex: number;
}

/** The log's key and origin a store records (`tlog_public_key`; recordLogKey). */
export interface RecordedLogKey {
  /** The 32-byte ed25519 public key. */
  publicKey: Buffer;
  /** The origin; null only while a key recorded before schema version 14 has none. */
  origin: string | null;
}

/** The newest cosigned checkpoint served (`tlog_cosigned`): the note with its cosignature lines. */
export interface CosignedCheckpointRecord {
  checkpoint: string;
  size: number;
  /** Root hash, lower-case hex. */
  root: string;
}

export interface AccessKeyRecord {
  /** Access public key, lower-case hex. */
  accessKey: string;
  /** Identity public key, lower-case hex. */
  identity: string;
  createdAt: number;
  revokedAt: number | null;
}

export interface AssetRecord {
  issuer: string;
  assetId: string;
  quantity: number;
  divisibility: number;
}

export interface BalanceRecord {
  issuer: string;
  assetId: string;
  amount: number;
}

/** A page of a contract's books (Store.getAssetsPage), with each list's size over every page. */
export interface AssetsPage {
  assets: AssetRecord[];
  balances: BalanceRecord[];
  assetsTotal: number;
  balancesTotal: number;
}

export interface SendRecord {
  commitHash: string;
  from: string;
  to: string;
  issuer: string;
  assetId: string;
  amount: number;
  /** Hash of the RECV commit that received it, or null. */
  receivedBy: string | null;
}

/** Store.getSendFiling: the stored `sends.leaf_index` and `sends.received` of a SEND. */
export interface SendFiling {
  leafIndex: number | null;
  received: boolean;
}

/** A SEND as its recipient lists it: the record plus where and when the hub accepted the SEND commit. */
export interface IncomingSendRecord extends SendRecord {
  /** The SEND commit's receipt time, integer seconds. */
  timestamp: number;
  /** The SEND commit's leaf in the hub's Merkle tree. */
  leafIndex: number;
}

/**
 * A persisted snapshot of a contract's state after its first `length` commits (docs/storage.md):
 * `state` is the text hub/stateSnapshot.ts writes, `format` its version, `digest` the
 * lower-case hex SHA-256 of `state`. The store keeps the newest one per contract.
 */
export interface StateSnapshot {
  contractId: string;
  length: number;
  /** Hash of the commit at `length - 1`. */
  head: string;
  format: number;
  state: string;
  digest: string;
}

/** Counters that make group commit observable (tests, metrics). */
export interface StoreStats {
  /** Write transactions committed (or attempted). */
  transactions: number;
  /** Write requests (appends, nonces, keys, grants) served by those transactions. */
  writes: number;
  /** `appendCommits` calls that succeeded. */
  appends: number;
}

export interface Store {
  /** Releases the database; pending writes are flushed first. */
  close(): Promise<void>;

  /** The contract's row, or null. */
  getContract(id: string): Promise<ContractRecord | null>;
  /** Contracts visible to `identity` (public ones, owned, granted or party ones), oldest first. */
  listContracts(q: {
    identity: string | null;
    limit: number;
    offset: number;
  }): Promise<{ contracts: ContractRecord[]; total: number }>;

  /**
   * Appends `commits` (consecutive, starting at the stored length) iff the stored head is
   * still `expectedHead` (null: the contract must not exist, and `extras.contract` creates
   * it). All or nothing; CONFLICT with `details.head` otherwise. Resolves once durable.
   * The commits become the next leaves of the hub's Merkle tree, in order, in the same
   * transaction; the store sets each one's `leafIndex`.
   */
  appendCommits(
    contractId: string,
    expectedHead: string | null,
    commits: StoredCommit[],
    extras?: AppendExtras,
  ): Promise<void>;
  /** Streams commits with `from <= index < to` (to: the length when called), in order, page by page. */
  readCommits(contractId: string, from?: number, to?: number): AsyncIterable<StoredCommit>;
  /**
   * Streams the pull entries (docs/api.md) of the commits with `from <= index < to` (to: at
   * most the length when called), in order, a page of JSON texts at a time: the stored wire
   * bytes joined with the per-entry fields, never a parsed and re-serialised row.
   */
  readPullTexts(contractId: string, from: number, to: number): AsyncIterable<string[]>;
  /** The commit with this hash in this contract, or null. */
  getCommitByHash(contractId: string, hash: string): Promise<StoredCommit | null>;
  /** Which of `hashes` are stored in this contract (one query, however many hashes). */
  storedHashes(contractId: string, hashes: readonly string[]): Promise<Set<string>>;
  /** The commit at this index, or null. */
  getCommitAt(contractId: string, index: number): Promise<StoredCommit | null>;

  /** Grants `role` (or removes the grant with `none`). */
  setGrant(contractId: string, identity: string, role: GrantRole | "none", at: number): Promise<void>;
  /** The identity's role on a contract, or null. */
  getGrant(contractId: string, identity: string): Promise<GrantRole | null>;
  /** Every grant of a contract. */
  listGrants(contractId: string): Promise<{ identity: string; role: GrantRole }[]>;

  /**
   * Registers `accessKey` for `identity` (creating the identity). Re-registering the same
   * pair is idempotent; a key of another identity or a revoked key is CONFLICT
   * (`details.reason`: `access_key_taken` / `access_key_revoked`).
   */
  registerAccessKey(identity: string, accessKey: string, createdAt: number): Promise<AccessKeyRecord>;
  /** The access key's record, or null. */
  getAccessKey(accessKey: string): Promise<AccessKeyRecord | null>;
  /** Revokes a key (the first revocation time stays); null when unknown. */
  revokeAccessKey(accessKey: string, at: number): Promise<AccessKeyRecord | null>;
  /** Every access key of an identity, oldest first. */
  listAccessKeys(identity: string): Promise<AccessKeyRecord[]>;
  /**
   * Records a request nonce until `expiresAt` (seconds); false when it was already seen
   * and has not expired (a replay). Durable, so shared by every instance on the store.
   */
  useNonce(accessKey: string, nonce: string, expiresAt: number): Promise<boolean>;

  /**
   * Every asset created in a contract and every balance it holds, for `verify`, which checks
   * them all; a request reads a page (getAssetsPage).
   */
  getAssets(contractId: string): Promise<{ assets: AssetRecord[]; balances: BalanceRecord[] }>;
  /**
   * One page of a contract's books (`GET /contracts/:id/assets`): up to `limit` of the assets
   * it created (by asset id) and up to `limit` of the balances it holds (by issuer, then
   * asset id), each list from its own `offset`, read in order from the primary keys, with how
   * many of each there are.
   */
  getAssetsPage(contractId: string, page: { limit: number; offset: number }): Promise<AssetsPage>;
  /** One asset by its key (issuing contract, asset id), or null. */
  getAsset(issuer: string, assetId: string): Promise<AssetRecord | null>;
  /**
   * `holder`'s balances of assets with the id `assetId` (one issuer's when `issuer` is
   * given), by issuer: what the asset ledger needs of a contract's books for one operation,
   * so its reads do not grow with how many assets the contract issued or holds.
   */
  getBalancesNamed(holder: string, assetId: string, issuer?: string): Promise<BalanceRecord[]>;
  /** A SEND by commit hash, or null. */
  getSend(commitHash: string): Promise<SendRecord | null>;
  /**
   * How a SEND is filed for its recipient's incoming list (docs/storage.md): the leaf it is
   * ordered by and whether it is marked received (schema version 13), as stored; null when no
   * SEND has that hash. `verify` checks both against the log and the receipts.
   */
  getSendFiling(commitHash: string): Promise<SendFiling | null>;
  /**
   * The SENDs addressed to `contractId` (only those not yet received when `pending`), in the
   * order the hub accepted them (oldest first, by leaf), a page at a time, with how many match.
   */
  listIncomingSends(
    contractId: string,
    q: { pending: boolean; limit: number; offset: number },
  ): Promise<{ sends: IncomingSendRecord[]; total: number }>;

  /** Leaves in the hub's Merkle tree: every commit acknowledged so far (docs/transparency.md). */
  treeSize(): Promise<number>;
  /** Stored complete subtrees by id, keyed by nodeKey; throws CORRUPTED when one is missing. */
  readTreeNodes(ids: readonly NodeId[]): Promise<Map<string, Buffer>>;
  /** The contract, index and leaf of the commit with this hash, or null. */
  findLeaf(hash: string): Promise<LeafRecord | null>;
  /**
   * The log key's 32-byte seed kept with the store, created on first use (SQLite: a file in
   * the data directory; PostgreSQL: a row shared by every instance). None is created when the
   * store records a log key (recordLogKey) and holds no seed: that key was given as a file,
   * and a new one would not be it (INTERNAL `log_key_mismatch`).
   */
  logKeySeed(): Promise<Buffer>;
  /**
   * The log's key and origin as the store records them: `publicKey` and `origin`, recorded
   * now, when it records no key yet (in one statement: of instances racing, one is
   * recorded), else the ones recorded before. A key recorded without an origin (before
   * schema version 14) gets `origin` when `publicKey` is that key, and keeps none for
   * another (its `origin` is then null). Never changed otherwise (../store/loadLogKey.ts).
   */
  recordLogKey(publicKey: Buffer, origin: string): Promise<RecordedLogKey>;
  /** The newest cosigned checkpoint any instance on this store served, or null. */
  readCosignedCheckpoint(): Promise<CosignedCheckpointRecord | null>;
  /**
   * Stores `c` as the newest cosigned checkpoint iff its tree is larger than the stored one's,
   * in one statement (instances racing never move it back); true when it was stored.
   */
  saveCosignedCheckpoint(c: CosignedCheckpointRecord): Promise<boolean>;
  /**
   * Stores a new proposal, or reopens a withdrawn or expired one of the same hash, in one
   * transaction with the count of the contract's open proposals: RATE_LIMITED when `maxOpen`
   * are open already. An open or committed proposal of that hash is returned unchanged.
   */
  saveProposal(
    proposal: ProposalRecord,
    q: { maxOpen: number; now: number },
  ): Promise<{ proposal: ProposalRecord; created: boolean }>;
  /** The proposal with this hash in this contract, or null. */
  getProposal(contractId: string, hash: string): Promise<ProposalRecord | null>;
  /** The contract's proposals whose status (as proposalStatus derives it at `now`) is `status`, newest first. */
  listProposals(
    contractId: string,
    q: { status: ProposalStatus; now: number; limit: number; offset: number },
  ): Promise<ProposalRecord[]>;
  /**
   * Adds signatures to a stored-open proposal whose signatures are still `judged` (those the
   * caller judged the new ones against), atomically with concurrent additions (so the last of
   * two racing signers sees both); returns the proposal after it, or null when absent. When
   * the proposal is no longer open or holds other signatures (another hub instance changed it
   * meanwhile) nothing is written and the proposal is returned as it is.
   */
  addProposalSignatures(
    contractId: string,
    hash: string,
    signatures: Record<string, string>,
    judged: Record<string, string>,
  ): Promise<ProposalRecord | null>;
  /** Marks a stored-open proposal withdrawn; returns the proposal after it, or null when absent. */
  withdrawProposal(contractId: string, hash: string): Promise<ProposalRecord | null>;

  /** Keeps `snapshot` unless the contract's stored one is at least as long (so racing writers never go back). */
  saveSnapshot(snapshot: StateSnapshot): Promise<void>;
  /** The contract's newest snapshot, or null. */
  readSnapshot(contractId: string): Promise<StateSnapshot | null>;
  /** Every stored snapshot, by contract id (for `contract-hub verify`). */
  listSnapshots(): Promise<StateSnapshot[]>;

  /** Write counters (group commit is observable through them). */
  stats(): StoreStats;
}
