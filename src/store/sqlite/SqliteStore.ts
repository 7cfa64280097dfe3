import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { ContractError } from "../../contract/ContractError.js";
import type { StoredCommit } from "../../contract/StoredCommit.js";
import { readOrCreateLogKeyFile } from "../../tlog/logKeyFile.js";
import type { NodeId } from "../../tlog/merkle.js";
import { checkChain, headConflict, lengthAtHead } from "../appendPosition.js";
import { replayedNonce } from "../replayedNonce.js";
import { type AccessKeyRow, accessKeyFromRow, type ContractRow, contractFromRow } from "../rows.js";
import type {
  AccessKeyRecord,
  AppendExtras,
  AssetRecord,
  BalanceRecord,
  ContractRecord,
  GrantRole,
  LeafRecord,
  ProposalRecord,
  ProposalStatus,
  RequestNonce,
  SendRecord,
  Store,
  StoreStats,
} from "../Store.js";
import { applyAssetEffects } from "./applyAssetEffects.js";
import { COMMIT_COLUMNS, type CommitRow, commitFromRow, commitParams } from "./commitRows.js";
import { GroupCommitter } from "./GroupCommitter.js";
import { migrate } from "./migrate.js";
import {
  addSignaturesSync,
  listProposalsSync,
  markCommittedSync,
  readProposal,
  saveProposalSync,
  withdrawSync,
} from "./sqliteProposals.js";
import { appendSqliteLeaves, backfillSqliteLeaves, readSqliteTreeNodes, sqliteTreeSize } from "./sqliteTree.js";

export interface SqliteStoreOptions {
  /** Directory of `hub.sqlite` (created if missing). */
  dataDir: string;
  /** Milliseconds a writer waits for another process's write lock (default 5000). */
  busyTimeoutMs?: number;
  /** Rows per page when streaming commits (default 256). */
  pageSize?: number;
}

/** The embedded store: `<dataDir>/hub.sqlite`, WAL, synchronous=FULL, group commit (docs/storage.md). */
export class SqliteStore implements Store {
  readonly path: string;
  private readonly dataDir: string;
  private readonly db: Database.Database;
  private readonly committer: GroupCommitter;
  private readonly pageSize: number;
  private appends = 0;
  private readonly statements = new Map<string, Database.Statement>();
  private closed = false;

  /** Opens (creating and migrating) the database in `options.dataDir`. */
  static async open(options: SqliteStoreOptions): Promise<SqliteStore> {
    return new SqliteStore(options);
  }

  private constructor(options: SqliteStoreOptions) {
    mkdirSync(options.dataDir, { recursive: true });
    this.dataDir = options.dataDir;
    this.path = join(options.dataDir, "hub.sqlite");
    this.db = new Database(this.path, { timeout: options.busyTimeoutMs ?? 5000 });
    this.db.pragma("journal_mode = WAL");
    // FULL: the WAL is fsynced at every COMMIT, so an acknowledged write survives power loss.
    this.db.pragma("synchronous = FULL");
    this.db.pragma("foreign_keys = ON");
    this.pageSize = options.pageSize ?? 256;
    migrate(this.db, Math.floor(Date.now() / 1000));
    backfillSqliteLeaves(this.db, (text) => this.sql(text));
    this.committer = new GroupCommitter(this.db);
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
      synchronous: Number(this.db.pragma("synchronous", { simple: true })),
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.committer.flush();
    this.closed = true;
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
    await this.committer.run(() => this.appendInTransaction(contractId, expectedHead, commits, extras));
    this.appends++;
  }

  /** The body of one append, run inside its savepoint: head check, inserts, head update, effects. */
  private appendInTransaction(
    contractId: string,
    expectedHead: string | null,
    commits: StoredCommit[],
    extras: AppendExtras,
  ): void {
    if (extras.nonce !== undefined && !this.recordNonce(extras.nonce)) throw replayedNonce();
    const row = this.sql("SELECT head, length FROM contracts WHERE id = ?").get(contractId) as
      | { head: string; length: number }
      | undefined;
    let length: number;
    if (expectedHead === null) {
      if (row !== undefined) throw headConflict(contractId, row.head, `Cannot append: contract ${contractId} exists`);
      const c = extras.contract;
      if (c === undefined) throw new ContractError("INTERNAL", "Cannot create a contract without its record");
      this.sql("INSERT INTO contracts (id, owner, created_at, head, length, private) VALUES (?, ?, ?, ?, 0, ?)").run(
        contractId,
        c.owner,
        c.createdAt,
        commits[0]!.hash,
        c.private ? 1 : 0,
      );
      const grant = this.sql(
        "INSERT INTO grants (contract_id, identity, role, granted_at) VALUES (?, ?, 'reader', ?) ON CONFLICT DO NOTHING",
      );
      for (const reader of c.readers ?? []) grant.run(contractId, reader, c.createdAt);
      length = 0;
    } else {
      length = lengthAtHead(contractId, row, expectedHead);
    }
    const parent = checkChain(length, expectedHead, commits);
    appendSqliteLeaves((text) => this.sql(text), commits);
    const insert = this.sql(
      `INSERT INTO commits (contract_id, idx, hash, parent, data, signatures, attestations, timestamp, signers, leaf_index)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const c of commits) insert.run(...commitParams(contractId, c));
    this.sql("UPDATE contracts SET head = ?, length = ? WHERE id = ?").run(parent, length + commits.length, contractId);
    if (extras.assetEffects !== undefined) applyAssetEffects(this.db, extras.assetEffects);
    if (extras.parties !== undefined && extras.parties.length > 0) {
      const party = this.sql(
        `INSERT INTO party_paths (contract_id, path, identity) VALUES (?, ?, ?)
           ON CONFLICT (contract_id, path) DO UPDATE SET identity = excluded.identity`,
      );
      for (const p of extras.parties) party.run(contractId, p.path, p.identity);
    }
    if (extras.proposal !== undefined) {
      const hash = extras.proposal.hash;
      markCommittedSync(this.sql.bind(this), contractId, extras.proposal, commits.find((c) => c.hash === hash)!.index);
    }
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

  async getCommitByHash(contractId: string, hash: string): Promise<StoredCommit | null> {
    const row = this.sql(`SELECT ${COMMIT_COLUMNS} FROM commits WHERE contract_id = ? AND hash = ?`).get(
      contractId,
      hash,
    ) as CommitRow | undefined;
    return row === undefined ? null : commitFromRow(row);
  }

  async storedHashes(contractId: string, hashes: readonly string[]): Promise<Set<string>> {
    if (hashes.length === 0) return new Set();
    // One statement for any number of hashes: the list travels as one JSON parameter.
    const rows = this.sql(
      "SELECT hash FROM commits WHERE contract_id = ? AND hash IN (SELECT value FROM json_each(?))",
    ).all(contractId, JSON.stringify(hashes)) as { hash: string }[];
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
    await this.committer.run(() => {
      if (role === "none") {
        this.sql("DELETE FROM grants WHERE contract_id = ? AND identity = ?").run(contractId, identity);
        return;
      }
      this.sql(
        `INSERT INTO grants (contract_id, identity, role, granted_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (contract_id, identity) DO UPDATE SET role = excluded.role, granted_at = excluded.granted_at`,
      ).run(contractId, identity, role, at);
    });
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
    return this.committer.run(() => {
      const existing = this.sql("SELECT * FROM access_keys WHERE access_key = ?").get(accessKey) as
        | AccessKeyRow
        | undefined;
      if (existing !== undefined) {
        if (existing.revoked_at !== null)
          throw new ContractError("CONFLICT", "Cannot register access key: it was revoked", {
            reason: "access_key_revoked",
          });
        if (existing.identity !== identity)
          throw new ContractError("CONFLICT", "Cannot register access key: it belongs to another identity", {
            reason: "access_key_taken",
          });
        return accessKeyFromRow(existing);
      }
      this.sql("INSERT INTO identities (identity, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING").run(
        identity,
        createdAt,
      );
      this.sql("INSERT INTO access_keys (access_key, identity, created_at, revoked_at) VALUES (?, ?, ?, NULL)").run(
        accessKey,
        identity,
        createdAt,
      );
      return { accessKey, identity, createdAt, revokedAt: null };
    });
  }

  async getAccessKey(accessKey: string): Promise<AccessKeyRecord | null> {
    const row = this.sql("SELECT * FROM access_keys WHERE access_key = ?").get(accessKey) as AccessKeyRow | undefined;
    return row === undefined ? null : accessKeyFromRow(row);
  }

  async revokeAccessKey(accessKey: string, at: number): Promise<AccessKeyRecord | null> {
    return this.committer.run(() => {
      this.sql("UPDATE access_keys SET revoked_at = ? WHERE access_key = ? AND revoked_at IS NULL").run(at, accessKey);
      const row = this.sql("SELECT * FROM access_keys WHERE access_key = ?").get(accessKey) as AccessKeyRow | undefined;
      return row === undefined ? null : accessKeyFromRow(row);
    });
  }

  async listAccessKeys(identity: string): Promise<AccessKeyRecord[]> {
    const rows = this.sql("SELECT * FROM access_keys WHERE identity = ? ORDER BY created_at, access_key").all(
      identity,
    ) as AccessKeyRow[];
    return rows.map(accessKeyFromRow);
  }

  async useNonce(accessKey: string, nonce: string, expiresAt: number): Promise<boolean> {
    return this.committer.run(() => this.recordNonce({ accessKey, nonce, expiresAt }));
  }

  /** Records a nonce in the running transaction; false when it is live already (a replay). */
  private recordNonce(n: RequestNonce): boolean {
    const now = Math.floor(Date.now() / 1000);
    // An expired row may be reused; a live one means the request was seen (a replay).
    const r = this.sql(
      `INSERT INTO nonces (access_key, nonce, expires_at) VALUES (?, ?, ?)
         ON CONFLICT (access_key, nonce) DO UPDATE SET expires_at = excluded.expires_at
         WHERE nonces.expires_at < ?`,
    ).run(n.accessKey, n.nonce, n.expiresAt, now);
    // Deleting expired rows as we go keeps the table bounded without a sweeper (indexed by expiry).
    this.sql("DELETE FROM nonces WHERE expires_at < ?").run(now);
    return r.changes === 1;
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

  async getSend(commitHash: string): Promise<SendRecord | null> {
    const row = this.sql(
      `SELECT s.commit_hash AS commitHash, s.from_contract AS "from", s.to_contract AS "to", s.issuer,
                s.asset_id AS assetId, s.amount, r.recv_commit_hash AS receivedBy
         FROM sends s LEFT JOIN receipts r ON r.send_commit_hash = s.commit_hash WHERE s.commit_hash = ?`,
    ).get(commitHash) as SendRecord | undefined;
    return row ?? null;
  }

  async treeSize(): Promise<number> {
    return sqliteTreeSize((text) => this.sql(text));
  }

  async readTreeNodes(ids: readonly NodeId[]): Promise<Map<string, Buffer>> {
    return readSqliteTreeNodes((text) => this.sql(text), ids);
  }

  async findLeaf(hash: string): Promise<LeafRecord | null> {
    const row = this.sql("SELECT contract_id, idx, leaf_index FROM commits WHERE hash = ?").get(hash) as
      | { contract_id: string; idx: number; leaf_index: number }
      | undefined;
    return row === undefined ? null : { contractId: row.contract_id, index: row.idx, leafIndex: row.leaf_index };
  }

  async logKeySeed(): Promise<Buffer> {
    return readOrCreateLogKeyFile(join(this.dataDir, "log-key.json"));
  }

  async saveProposal(
    proposal: ProposalRecord,
    q: { maxOpen: number; now: number },
  ): Promise<{ proposal: ProposalRecord; created: boolean }> {
    return this.committer.run(() => saveProposalSync(this.sql.bind(this), proposal, q));
  }

  async getProposal(contractId: string, hash: string): Promise<ProposalRecord | null> {
    return readProposal(this.sql.bind(this), contractId, hash);
  }

  async listProposals(
    contractId: string,
    q: { status: ProposalStatus; now: number; limit: number; offset: number },
  ): Promise<ProposalRecord[]> {
    return listProposalsSync(this.sql.bind(this), contractId, q);
  }

  async addProposalSignatures(
    contractId: string,
    hash: string,
    signatures: Record<string, string>,
  ): Promise<ProposalRecord | null> {
    return this.committer.run(() => addSignaturesSync(this.sql.bind(this), contractId, hash, signatures));
  }

  async withdrawProposal(contractId: string, hash: string): Promise<ProposalRecord | null> {
    return this.committer.run(() => withdrawSync(this.sql.bind(this), contractId, hash));
  }

  stats(): StoreStats {
    return { transactions: this.committer.transactions, writes: this.committer.writes, appends: this.appends };
  }
}
