import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { ContractError } from "../../contract/ContractError.js";
import { encodeHex } from "../../contract/hex.js";
import type { StoredCommit } from "../../contract/StoredCommit.js";
import { readOrCreateLogKeyFile } from "../../tlog/logKeyFile.js";
import type { NodeId } from "../../tlog/merkle.js";
import { PULL_ENTRY_SQL } from "../commitText.js";
import { noSeedForLogKey } from "../loadLogKey.js";
import { proposalFromRow, proposalsFromRows } from "../ProposalRecord.js";
import { proposalParamsInSlices } from "../proposalParamsInSlices.js";
import { PULL_MEASURED_SQL, pullPages } from "../pullPages.js";
import { type AccessKeyRow, accessKeyFromRow, type ContractRow, contractFromRow, SNAPSHOT_COLUMNS } from "../rows.js";
import type {
  AccessKeyRecord,
  AppendExtras,
  AssetRecord,
  AssetsPage,
  BalanceRecord,
  ContractRecord,
  CosignedCheckpointRecord,
  GrantRole,
  IncomingSendRecord,
  LeafRecord,
  ProposalRecord,
  ProposalStatus,
  RecordedLogKey,
  SendFiling,
  SendRecord,
  StateSnapshot,
  Store,
  StoreStats,
} from "../Store.js";
import { appendInParts } from "./appendInParts.js";
import { COMMIT_COLUMNS, type CommitRow, commitFromRow } from "./commitRows.js";
import Database from "./Database.js";
import { migrate, schemaVersion } from "./migrate.js";
import { SCHEMA_VERSION } from "./migrations.js";
import { SqliteWriter } from "./SqliteWriter.js";
import { listProposalsSync, readProposalRow } from "./sqliteProposals.js";
import { backfillSqliteLeaves, readSqliteTreeNodes, sqliteTreeSize } from "./sqliteTree.js";

export interface SqliteStoreOptions {
  /** Directory of `hub.sqlite` (created if missing). */
  dataDir: string;
  /** Milliseconds a writer waits for another process's write lock (default 5000). */
  busyTimeoutMs?: number;
  /** Rows per page when streaming commits (default 256). */
  pageSize?: number;
  /**
   * Give leaves to commits stored without one (default true). `verify` opens with false: in a
   * store of the current schema a missing leaf is damage to report, and verify must not change
   * what it checks. A store it migrates from before the tree still gets its leaves.
   */
  repairLeaves?: boolean;
}

/**
 * The statements that find commits by hash, each answered from the unique index on `hash`
 * (schema version 7; test/migration-v7.test.ts checks their plans). In `stored` the unary `+` keeps
 * SQLite, which has no statistics here, from walking the contract's whole primary-key range
 * instead of looking each hash up.
 */
export const BY_HASH = {
  commit: `SELECT ${COMMIT_COLUMNS} FROM commits WHERE contract_id = ? AND hash = ?`,
  stored: "SELECT hash FROM commits WHERE +contract_id = ? AND hash IN (SELECT value FROM json_each(?))",
  leaf: "SELECT contract_id, idx, leaf_index FROM commits WHERE hash = ?",
  /**
   * A contract's incoming SENDs with their commits' receipt time and leaf, read in order from
   * an index: a page reads its rows (and the ones its offset skips), not every SEND addressed
   * to the contract. `pending` (unreceived only) reads `sends_pending_by_recipient_leaf`, which
   * holds only the SENDs not received (schema version 13), so received ones are not stepped
   * over; they have no receipt to join. A SEND's commit has one leaf.
   */
  incoming: (pending: boolean) =>
    pending
      ? `SELECT s.commit_hash AS commitHash, s.from_contract AS "from", s.to_contract AS "to", s.issuer,
                s.asset_id AS assetId, s.amount, NULL AS receivedBy, c.timestamp, s.leaf_index AS leafIndex
           FROM sends s JOIN commits c ON c.contract_id = s.from_contract AND c.hash = s.commit_hash
          WHERE s.to_contract = @contractId AND s.received = 0
          ORDER BY s.leaf_index LIMIT @limit OFFSET @offset`
      : `SELECT s.commit_hash AS commitHash, s.from_contract AS "from", s.to_contract AS "to", s.issuer,
                s.asset_id AS assetId, s.amount, r.recv_commit_hash AS receivedBy,
                c.timestamp, s.leaf_index AS leafIndex
           FROM sends s JOIN commits c ON c.contract_id = s.from_contract AND c.hash = s.commit_hash
           LEFT JOIN receipts r ON r.send_commit_hash = s.commit_hash
          WHERE s.to_contract = @contractId
          ORDER BY s.leaf_index LIMIT @limit OFFSET @offset`,
  /** How many SENDs `incoming` lists over every page, counted from its index alone. */
  incomingTotal: (pending: boolean) =>
    `SELECT COUNT(*) AS n FROM sends WHERE to_contract = @contractId${pending ? " AND received = 0" : ""}`,
};

/**
 * A page of a contract's books (Store.getAssetsPage), each list read in its primary key's
 * order from that key: assets (issuer, asset_id), balances (contract_id, issuer, asset_id).
 */
export const ASSETS_PAGE = {
  assets: `SELECT issuer, asset_id AS assetId, quantity, divisibility FROM assets WHERE issuer = @contractId
            ORDER BY asset_id LIMIT @limit OFFSET @offset`,
  balances: `SELECT issuer, asset_id AS assetId, amount FROM balances WHERE contract_id = @contractId
              ORDER BY issuer, asset_id LIMIT @limit OFFSET @offset`,
};

/** The embedded store: `<dataDir>/hub.sqlite`, WAL, synchronous=FULL; reads on this thread, writes on the writer thread with group commit (docs/storage.md). */
export class SqliteStore implements Store {
  readonly path: string;
  private readonly dataDir: string;
  private readonly pageSize: number;
  private appends = 0;
  private readonly statements = new Map<string, Database.Statement>();
  private closed = false;

  /** Opens (creating and migrating) the database in `options.dataDir`, and starts its writer thread. */
  static async open(options: SqliteStoreOptions): Promise<SqliteStore> {
    mkdirSync(options.dataDir, { recursive: true });
    const path = join(options.dataDir, "hub.sqlite");
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    const db = new Database(path, { timeout: busyTimeoutMs });
    try {
      // WAL: the writer thread's commits never block this connection's reads, and each read
      // sees every write acknowledged before it began.
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = FULL");
      db.pragma("foreign_keys = ON");
      const before = schemaVersion(db);
      migrate(db, Math.floor(Date.now() / 1000));
      if (options.repairLeaves !== false || before < SCHEMA_VERSION)
        backfillSqliteLeaves(db, (text) => db.prepare(text));
      const writer = await SqliteWriter.open(path, busyTimeoutMs);
      return new SqliteStore(options, path, db, writer);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  private constructor(
    options: SqliteStoreOptions,
    path: string,
    private readonly db: Database.Database,
    private readonly writer: SqliteWriter,
  ) {
    this.dataDir = options.dataDir;
    this.path = path;
    this.pageSize = options.pageSize ?? 256;
  }

  /** A prepared statement, compiled once per SQL text. */
  private sql(text: string): Database.Statement {
    let st = this.statements.get(text);
    if (st === undefined) this.statements.set(text, (st = this.db.prepare(text)));
    return st;
  }

  /** The journal mode and synchronous level actually in force (for tests and `verify`). */
  settings(): { journalMode: string; synchronous: number } {
    return {
      journalMode: String(this.db.pragma("journal_mode", { simple: true })),
      // The write connection's: it is the one whose COMMITs acknowledge writes.
      synchronous: this.writer.synchronous,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writer.close();
    this.db.close();
  }

  async getContract(id: string): Promise<ContractRecord | null> {
    const row = this.sql("SELECT * FROM contracts WHERE id = ?").get(id) as ContractRow | undefined;
    return row === undefined ? null : contractFromRow(row);
  }

  async listContracts(q: {
    identity: string | null;
    limit: number;
    offset: number;
  }): Promise<{ contracts: ContractRecord[]; total: number }> {
    const visible = `FROM contracts c WHERE c.private = 0 OR c.owner = @identity
      OR EXISTS (SELECT 1 FROM grants g WHERE g.contract_id = c.id AND g.identity = @identity)
      OR EXISTS (SELECT 1 FROM party_paths p WHERE p.contract_id = c.id AND p.identity = @identity)`;
    const params = { identity: q.identity ?? "", limit: q.limit, offset: q.offset };
    const total = (this.sql(`SELECT COUNT(*) AS n ${visible}`).get(params) as { n: number }).n;
    const rows = this.sql(`SELECT c.* ${visible} ORDER BY c.created_at, c.id LIMIT @limit OFFSET @offset`).all(
      params,
    ) as ContractRow[];
    return { contracts: rows.map(contractFromRow), total };
  }

  async appendCommits(
    contractId: string,
    expectedHead: string | null,
    commits: StoredCommit[],
    extras: AppendExtras = {},
  ): Promise<void> {
    if (commits.length === 0) throw new ContractError("INTERNAL", "Cannot append: no commits given");
    // A big append's rows reach the writer in parts, built in the shared time slices.
    const firstLeaf = await appendInParts(this.writer, contractId, expectedHead, commits, extras);
    // The writer numbered copies of the commits: the callers' objects get their leaves here.
    commits.forEach((c, i) => {
      c.leafIndex = firstLeaf + i;
    });
    this.appends++;
  }

  async *readCommits(contractId: string, from = 0, to?: number): AsyncIterable<StoredCommit> {
    const row = this.sql("SELECT length FROM contracts WHERE id = ?").get(contractId) as { length: number } | undefined;
    if (row === undefined) return;
    // Bounded by the length at the start: a consistent prefix even while appends continue.
    const end = Math.min(to ?? row.length, row.length);
    const page = this.sql(
      `SELECT ${COMMIT_COLUMNS} FROM commits WHERE contract_id = ? AND idx >= ? AND idx < ? ORDER BY idx LIMIT ?`,
    );
    // Pages, not one open cursor: a better-sqlite3 iterator would hold the connection busy
    // across awaits and block every write until the consumer finished.
    for (let next = from; next < end; ) {
      const rows = page.all(contractId, next, end, this.pageSize) as CommitRow[];
      if (rows.length === 0) return;
      for (const r of rows) yield commitFromRow(r);
      next = rows[rows.length - 1]!.idx + 1;
    }
  }

  async *readPullTexts(contractId: string, from: number, to: number): AsyncIterable<string[]> {
    const row = this.sql("SELECT length FROM contracts WHERE id = ?").get(contractId) as { length: number } | undefined;
    if (row === undefined) return;
    const end = Math.min(to, row.length);
    const range = "FROM commits WHERE contract_id = ? AND idx >= ? AND idx < ? ORDER BY idx LIMIT ?";
    const measured = this.sql(`SELECT ${PULL_MEASURED_SQL} ${range}`).pluck();
    const texts = this.sql(`SELECT ${PULL_ENTRY_SQL} ${range}`).pluck();
    // Pages, as in readCommits, of 1,024 entries at most (they are only joined, not parsed)
    // and PULL_PAGE_CHARS: better-sqlite3 reads synchronously, so a page's read, join and
    // write are one turn of the event loop (../pullPages.ts).
    yield* pullPages(
      {
        measured: async (next, limit) => measured.all(contractId, next, end, limit) as (string | number)[],
        texts: async (next, count) => texts.all(contractId, next, end, count) as string[],
      },
      from,
      end,
      this.pageSize * 4,
    );
  }

  async getCommitByHash(contractId: string, hash: string): Promise<StoredCommit | null> {
    const row = this.sql(BY_HASH.commit).get(contractId, hash) as CommitRow | undefined;
    return row === undefined ? null : commitFromRow(row);
  }

  async storedHashes(contractId: string, hashes: readonly string[]): Promise<Set<string>> {
    if (hashes.length === 0) return new Set();
    // One statement for any number of hashes: the list travels as one JSON parameter.
    const rows = this.sql(BY_HASH.stored).all(contractId, JSON.stringify(hashes)) as { hash: string }[];
    return new Set(rows.map((r) => r.hash));
  }

  async getCommitAt(contractId: string, index: number): Promise<StoredCommit | null> {
    const row = this.sql(`SELECT ${COMMIT_COLUMNS} FROM commits WHERE contract_id = ? AND idx = ?`).get(
      contractId,
      index,
    ) as CommitRow | undefined;
    return row === undefined ? null : commitFromRow(row);
  }

  async setGrant(contractId: string, identity: string, role: GrantRole | "none", at: number): Promise<void> {
    await this.writer.run("setGrant", contractId, identity, role, at);
  }

  async getGrant(contractId: string, identity: string): Promise<GrantRole | null> {
    const row = this.sql("SELECT role FROM grants WHERE contract_id = ? AND identity = ?").get(contractId, identity) as
      | { role: GrantRole }
      | undefined;
    return row?.role ?? null;
  }

  async listGrants(contractId: string): Promise<{ identity: string; role: GrantRole }[]> {
    return this.sql("SELECT identity, role FROM grants WHERE contract_id = ? ORDER BY granted_at, identity").all(
      contractId,
    ) as { identity: string; role: GrantRole }[];
  }

  async registerAccessKey(identity: string, accessKey: string, createdAt: number): Promise<AccessKeyRecord> {
    return this.writer.run("registerAccessKey", identity, accessKey, createdAt);
  }

  async getAccessKey(accessKey: string): Promise<AccessKeyRecord | null> {
    const row = this.sql("SELECT * FROM access_keys WHERE access_key = ?").get(accessKey) as AccessKeyRow | undefined;
    return row === undefined ? null : accessKeyFromRow(row);
  }

  async revokeAccessKey(accessKey: string, at: number): Promise<AccessKeyRecord | null> {
    return this.writer.run("revokeAccessKey", accessKey, at);
  }

  async listAccessKeys(identity: string): Promise<AccessKeyRecord[]> {
    const rows = this.sql("SELECT * FROM access_keys WHERE identity = ? ORDER BY created_at, access_key").all(
      identity,
    ) as AccessKeyRow[];
    return rows.map(accessKeyFromRow);
  }

  async useNonce(accessKey: string, nonce: string, expiresAt: number): Promise<boolean> {
    return this.writer.run("useNonce", { accessKey, nonce, expiresAt });
  }

  async getAssets(contractId: string): Promise<{ assets: AssetRecord[]; balances: BalanceRecord[] }> {
    const assets = this.sql(
      "SELECT issuer, asset_id AS assetId, quantity, divisibility FROM assets WHERE issuer = ? ORDER BY asset_id",
    ).all(contractId) as AssetRecord[];
    const balances = this.sql(
      "SELECT issuer, asset_id AS assetId, amount FROM balances WHERE contract_id = ? ORDER BY issuer, asset_id",
    ).all(contractId) as BalanceRecord[];
    return { assets, balances };
  }

  async getAssetsPage(contractId: string, page: { limit: number; offset: number }): Promise<AssetsPage> {
    const params = { contractId, limit: page.limit, offset: page.offset };
    const count = (text: string) => (this.sql(text).get(params) as { n: number }).n;
    return {
      assets: this.sql(ASSETS_PAGE.assets).all(params) as AssetRecord[],
      balances: this.sql(ASSETS_PAGE.balances).all(params) as BalanceRecord[],
      assetsTotal: count("SELECT COUNT(*) AS n FROM assets WHERE issuer = @contractId"),
      balancesTotal: count("SELECT COUNT(*) AS n FROM balances WHERE contract_id = @contractId"),
    };
  }

  async getAsset(issuer: string, assetId: string): Promise<AssetRecord | null> {
    const row = this.sql(
      "SELECT issuer, asset_id AS assetId, quantity, divisibility FROM assets WHERE issuer = ? AND asset_id = ?",
    ).get(issuer, assetId) as AssetRecord | undefined;
    return row ?? null;
  }

  async getBalancesNamed(holder: string, assetId: string, issuer?: string): Promise<BalanceRecord[]> {
    return (
      issuer === undefined
        ? this.sql(
            "SELECT issuer, asset_id AS assetId, amount FROM balances WHERE contract_id = ? AND asset_id = ? ORDER BY issuer",
          ).all(holder, assetId)
        : this.sql(
            "SELECT issuer, asset_id AS assetId, amount FROM balances WHERE contract_id = ? AND issuer = ? AND asset_id = ?",
          ).all(holder, issuer, assetId)
    ) as BalanceRecord[];
  }

  async getSend(commitHash: string): Promise<SendRecord | null> {
    const row = this.sql(
      `SELECT s.commit_hash AS commitHash, s.from_contract AS "from", s.to_contract AS "to", s.issuer,
                s.asset_id AS assetId, s.amount, r.recv_commit_hash AS receivedBy
         FROM sends s LEFT JOIN receipts r ON r.send_commit_hash = s.commit_hash WHERE s.commit_hash = ?`,
    ).get(commitHash) as SendRecord | undefined;
    return row ?? null;
  }

  async getSendFiling(commitHash: string): Promise<SendFiling | null> {
    const row = this.sql("SELECT leaf_index AS leafIndex, received FROM sends WHERE commit_hash = ?").get(commitHash) as
      | { leafIndex: number | null; received: number }
      | undefined;
    return row === undefined ? null : { leafIndex: row.leafIndex, received: row.received !== 0 };
  }

  async listIncomingSends(
    contractId: string,
    q: { pending: boolean; limit: number; offset: number },
  ): Promise<{ sends: IncomingSendRecord[]; total: number }> {
    const params = { contractId, limit: q.limit, offset: q.offset };
    const total = (this.sql(BY_HASH.incomingTotal(q.pending)).get(params) as { n: number }).n;
    const sends = this.sql(BY_HASH.incoming(q.pending)).all(params) as IncomingSendRecord[];
    return { sends, total };
  }

  async treeSize(): Promise<number> {
    return sqliteTreeSize((text) => this.sql(text));
  }

  async readTreeNodes(ids: readonly NodeId[]): Promise<Map<string, Buffer>> {
    return readSqliteTreeNodes((text) => this.sql(text), ids);
  }

  async findLeaf(hash: string): Promise<LeafRecord | null> {
    const row = this.sql(BY_HASH.leaf).get(hash) as
      | { contract_id: string; idx: number; leaf_index: number }
      | undefined;
    return row === undefined ? null : { contractId: row.contract_id, index: row.idx, leafIndex: row.leaf_index };
  }

  async logKeySeed(): Promise<Buffer> {
    const path = join(this.dataDir, "log-key.json");
    if (!existsSync(path)) {
      // A key recorded without its file here was given with --log-key: a new file would be another key.
      const recorded = this.sql("SELECT public_key FROM tlog_public_key WHERE id = 1").get() as
        | { public_key: string }
        | undefined;
      if (recorded !== undefined) throw noSeedForLogKey(recorded.public_key);
    }
    // Named without its path: a served hub may answer this error to a caller.
    return readOrCreateLogKeyFile(path, "log-key.json of the data directory");
  }

  async recordLogKey(publicKey: Buffer, origin: string): Promise<RecordedLogKey> {
    const row = await this.writer.run("recordLogKey", encodeHex(publicKey), origin);
    return { publicKey: Buffer.from(row.public_key, "hex"), origin: row.origin };
  }

  async readCosignedCheckpoint(): Promise<CosignedCheckpointRecord | null> {
    const row = this.sql("SELECT size, root, note AS checkpoint FROM tlog_cosigned WHERE id = 1").get() as
      | CosignedCheckpointRecord
      | undefined;
    return row ?? null;
  }

  async saveCosignedCheckpoint(c: CosignedCheckpointRecord): Promise<boolean> {
    return this.writer.run("saveCosignedCheckpoint", c);
  }

  async saveProposal(
    proposal: ProposalRecord,
    q: { maxOpen: number; now: number },
  ): Promise<{ proposal: ProposalRecord; created: boolean }> {
    // The row goes to the writer thread as text (sqliteProposals.ts), a big one written in slices.
    const { kept } = await this.writer.run("saveProposal", await proposalParamsInSlices(proposal), q);
    return kept === null ? { proposal, created: true } : { proposal: await proposalFromRow(kept), created: false };
  }

  async getProposal(contractId: string, hash: string): Promise<ProposalRecord | null> {
    const row = readProposalRow(this.sql.bind(this), contractId, hash);
    return row === null ? null : proposalFromRow(row);
  }

  async listProposals(
    contractId: string,
    q: { status: ProposalStatus; now: number; limit: number; offset: number },
  ): Promise<ProposalRecord[]> {
    return proposalsFromRows(listProposalsSync(this.sql.bind(this), contractId, q));
  }

  async addProposalSignatures(
    contractId: string,
    hash: string,
    signatures: Record<string, string>,
    judged: Record<string, string>,
  ): Promise<ProposalRecord | null> {
    const row = await this.writer.run("addProposalSignatures", contractId, hash, signatures, judged);
    return row === null ? null : proposalFromRow(row);
  }

  async withdrawProposal(contractId: string, hash: string): Promise<ProposalRecord | null> {
    const row = await this.writer.run("withdrawProposal", contractId, hash);
    return row === null ? null : proposalFromRow(row);
  }

  async saveSnapshot(s: StateSnapshot): Promise<void> {
    await this.writer.run("saveSnapshot", s);
  }

  async readSnapshot(contractId: string): Promise<StateSnapshot | null> {
    const row = this.sql(`SELECT ${SNAPSHOT_COLUMNS} FROM state_snapshots WHERE contract_id = ?`).get(contractId) as
      | StateSnapshot
      | undefined;
    return row ?? null;
  }

  async listSnapshots(): Promise<StateSnapshot[]> {
    return this.sql(`SELECT ${SNAPSHOT_COLUMNS} FROM state_snapshots ORDER BY contract_id`).all() as StateSnapshot[];
  }

  stats(): StoreStats {
    return { transactions: this.writer.transactions, writes: this.writer.writes, appends: this.appends };
  }
}
