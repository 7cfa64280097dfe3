import pg from "pg";
import { ContractError } from "../../contract/ContractError.js";
import { encodeHex } from "../../contract/hex.js";
import { generateKeyPair } from "../../contract/keys.js";
import type { StoredCommit } from "../../contract/StoredCommit.js";
import type { NodeId } from "../../tlog/merkle.js";
import { PULL_ENTRY_SQL } from "../commitText.js";
import { noSeedForLogKey } from "../loadLogKey.js";
import { proposalParamsInSlices } from "../proposalParamsInSlices.js";
import { PG_PULL_MEASURED_SQL, pullPages } from "../pullPages.js";
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
import { CommitListener, type CommitListenerHandlers } from "./CommitListener.js";
import { migratePg } from "./migrate.js";
import { appendInTransaction, INSERT_NONCE, nonceParams } from "./pgAppend.js";
import { COMMIT_COLUMNS, type CommitRow, commitFromRow } from "./pgCommitRows.js";
import {
  backendPid,
  checkedSchema,
  checkOut,
  clientConfig,
  type PgChannels,
  type PgLocation,
  pgChannels,
} from "./pgPool.js";
import { addPgSignatures, listPgProposals, readPgProposal, savePgProposal, withdrawPgProposal } from "./pgProposals.js";
import { backfillPgLeaves, readPgTreeNodes } from "./pgTree.js";

export interface PostgresStoreOptions extends PgLocation {
  /** Pool connections of this instance (default 10; see docs/deploy.md for sizing). */
  poolSize?: number;
  /** Rows per page when streaming commits (default 1000). */
  pageSize?: number;
}

/**
 * The statements that find commits by hash, each answered from the unique index on `hash`
 * (schema version 7; test/migration-v7-pg.test.ts checks their plans).
 */
export const PG_BY_HASH = {
  commit: `SELECT ${COMMIT_COLUMNS} FROM commits WHERE contract_id = $1 AND hash = $2`,
  stored: "SELECT hash FROM commits WHERE contract_id = $1 AND hash = ANY($2::text[])",
  leaf: "SELECT contract_id, idx, leaf_index FROM commits WHERE hash = $1",
  /**
   * A contract's incoming SENDs with their commits' receipt time and leaf, read in order from
   * `sends_by_recipient_leaf`, or (`pending`: unreceived only) from the partial index of the
   * SENDs not received, `sends_pending_by_recipient_leaf` (../sqlite/SqliteStore.ts BY_HASH).
   */
  incoming: (pending: boolean) =>
    pending
      ? `SELECT s.commit_hash AS "commitHash", s.from_contract AS "from", s.to_contract AS "to", s.issuer,
                s.asset_id AS "assetId", s.amount, NULL AS "receivedBy", c.timestamp, s.leaf_index AS "leafIndex"
           FROM sends s JOIN commits c ON c.contract_id = s.from_contract AND c.hash = s.commit_hash
          WHERE s.to_contract = $1 AND s.received = 0
          ORDER BY s.leaf_index LIMIT $2 OFFSET $3`
      : `SELECT s.commit_hash AS "commitHash", s.from_contract AS "from", s.to_contract AS "to", s.issuer,
                s.asset_id AS "assetId", s.amount, r.recv_commit_hash AS "receivedBy",
                c.timestamp, s.leaf_index AS "leafIndex"
           FROM sends s JOIN commits c ON c.contract_id = s.from_contract AND c.hash = s.commit_hash
           LEFT JOIN receipts r ON r.send_commit_hash = s.commit_hash
          WHERE s.to_contract = $1
          ORDER BY s.leaf_index LIMIT $2 OFFSET $3`,
  /** How many SENDs `incoming` lists over every page, counted from its index alone. */
  incomingTotal: (pending: boolean) =>
    `SELECT COUNT(*) AS n FROM sends WHERE to_contract = $1${pending ? " AND received = 0" : ""}`,
};

/**
 * The scale-out store (docs/storage.md): the SQLite schema and semantics on PostgreSQL, so
 * any number of stateless hub instances share one database. Appends of one contract are
 * serialised across instances by its row lock (`FOR UPDATE`), creation by the primary key;
 * each append is one transaction that also NOTIFYs `<contract_id>:<last index>`, which
 * PostgreSQL delivers to every LISTENing instance only once the transaction committed.
 */
export class PostgresStore implements Store {
  readonly pool: pg.Pool;
  readonly schema: string | undefined;
  private readonly location: PgLocation;
  private readonly channels: PgChannels;
  private readonly pageSize: number;
  private readonly ownPids = new Set<number>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly counters: StoreStats = { transactions: 0, writes: 0, appends: 0 };
  private lastNonceSweep = 0;
  private closed = false;

  /** Connects, creates the schema if asked for one, and migrates (under an advisory lock). */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const store = new PostgresStore(options);
    try {
      const { client, release } = await checkOut(store.pool);
      try {
        await migratePg(client, Math.floor(Date.now() / 1000), store.schema);
        await backfillPgLeaves(client);
      } finally {
        release();
      }
    } catch (err) {
      await store.pool.end().catch(() => {});
      throw err;
    }
    return store;
  }

  private constructor(options: PostgresStoreOptions) {
    this.schema = checkedSchema(options.schema);
    this.location = { connectionString: options.connectionString, ...(this.schema ? { schema: this.schema } : {}) };
    this.channels = pgChannels(this.schema);
    this.pageSize = options.pageSize ?? 1000;
    this.pool = new pg.Pool({ ...clientConfig(this.location, "contract-hub"), max: options.poolSize ?? 10 });
    // An idle client's connection can break (server restart); pg emits it on the pool,
    // and an unhandled 'error' would crash the process. The next checkout reconnects.
    this.pool.on("error", () => {});
    this.pool.on("connect", (client) => {
      const pid = backendPid(client);
      if (pid !== null) this.ownPids.add(pid);
    });
    this.pool.on("remove", (client) => {
      const pid = backendPid(client);
      if (pid !== null) this.ownPids.delete(pid);
    });
  }

  /** True when a notice was sent by one of this store's own connections. */
  isOwnBackend(processId: number): boolean {
    return this.ownPids.has(processId);
  }

  /** LISTENs to commits appended through any instance on this database and schema. */
  listenCommits(handlers: CommitListenerHandlers): Promise<CommitListener> {
    return CommitListener.start(this.location, handlers);
  }

  /** Runs `fn` in a transaction on one pool client; a write, counted and awaited by close(). */
  private write<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new ContractError("UNAVAILABLE", "The store is closed"));
    this.counters.transactions++;
    this.counters.writes++;
    const p = this.transaction(fn);
    this.inFlight.add(p);
    const forget = () => this.inFlight.delete(p);
    p.then(forget, forget);
    return p;
  }

  private async transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const { client, release } = await checkOut(this.pool);
    let broken: Error | undefined;
    try {
      await client.query("BEGIN");
      const value = await fn(client);
      await client.query("COMMIT");
      return value;
    } catch (err) {
      try {
        await client.query("ROLLBACK");
      } catch (rollbackError) {
        // The connection itself failed: discard it rather than return it to the pool.
        broken = rollbackError as Error;
      }
      throw err;
    } finally {
      release(broken);
    }
  }

  /** A single-statement write in autocommit mode (one round trip instead of three). */
  private writeStatement(text: string, params: unknown[]): Promise<pg.QueryResult> {
    if (this.closed) return Promise.reject(new ContractError("UNAVAILABLE", "The store is closed"));
    this.counters.transactions++;
    this.counters.writes++;
    const p = this.pool.query(text, params);
    this.inFlight.add(p);
    const forget = () => this.inFlight.delete(p);
    p.then(forget, forget);
    return p;
  }

  private async rows<R extends pg.QueryResultRow>(text: string, params: unknown[]): Promise<R[]> {
    return (await this.pool.query<R>(text, params)).rows;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Pending writes finish (or fail) first; a caller awaiting one gets its real outcome.
    await Promise.allSettled([...this.inFlight]);
    await this.pool.end();
  }

  async getContract(id: string): Promise<ContractRecord | null> {
    const [row] = await this.rows<ContractRow>("SELECT * FROM contracts WHERE id = $1", [id]);
    return row === undefined ? null : contractFromRow(row);
  }

  async listContracts(q: {
    identity: string | null;
    limit: number;
    offset: number;
  }): Promise<{ contracts: ContractRecord[]; total: number }> {
    const visible = `FROM contracts c WHERE c.private = 0 OR c.owner = $1
      OR EXISTS (SELECT 1 FROM grants g WHERE g.contract_id = c.id AND g.identity = $1)
      OR EXISTS (SELECT 1 FROM party_paths p WHERE p.contract_id = c.id AND p.identity = $1)`;
    const identity = q.identity ?? "";
    const [count] = await this.rows<{ n: number }>(`SELECT COUNT(*) AS n ${visible}`, [identity]);
    const rows = await this.rows<ContractRow>(`SELECT c.* ${visible} ORDER BY c.created_at, c.id LIMIT $2 OFFSET $3`, [
      identity,
      q.limit,
      q.offset,
    ]);
    return { contracts: rows.map(contractFromRow), total: count?.n ?? 0 };
  }

  async appendCommits(
    contractId: string,
    expectedHead: string | null,
    commits: StoredCommit[],
    extras: AppendExtras = {},
  ): Promise<void> {
    if (commits.length === 0) throw new ContractError("INTERNAL", "Cannot append: no commits given");
    await this.write((client) => appendInTransaction(client, this.channels, contractId, expectedHead, commits, extras));
    this.counters.appends++;
    // Outside the append's transaction, so the sweep never holds its locks.
    if (extras.nonce !== undefined) await this.sweepNonces(Math.floor(Date.now() / 1000));
  }

  async *readCommits(contractId: string, from = 0, to?: number): AsyncIterable<StoredCommit> {
    const [row] = await this.rows<{ length: number }>("SELECT length FROM contracts WHERE id = $1", [contractId]);
    if (row === undefined) return;
    // Bounded by the length at the start: a consistent prefix even while appends continue.
    const end = Math.min(to ?? row.length, row.length);
    // Keyset pages on the primary key, one pool query each: no connection is held while the
    // consumer is slow, and a 100k-commit pull never sits in memory at once.
    for (let next = from; next < end; ) {
      const rows = await this.rows<CommitRow>(
        `SELECT ${COMMIT_COLUMNS} FROM commits WHERE contract_id = $1 AND idx >= $2 AND idx < $3 ORDER BY idx LIMIT $4`,
        [contractId, next, end, this.pageSize],
      );
      if (rows.length === 0) return;
      for (const r of rows) yield commitFromRow(r);
      next = rows[rows.length - 1]!.idx + 1;
    }
  }

  async *readPullTexts(contractId: string, from: number, to: number): AsyncIterable<string[]> {
    const [row] = await this.rows<{ length: number }>("SELECT length FROM contracts WHERE id = $1", [contractId]);
    if (row === undefined) return;
    const end = Math.min(to, row.length);
    const range = "FROM commits WHERE contract_id = $1 AND idx >= $2 AND idx < $3 ORDER BY idx LIMIT $4";
    // Pages of this.pageSize entries and PULL_PAGE_CHARS at most (../pullPages.ts): a page is
    // joined and written to the socket in one piece.
    yield* pullPages(
      {
        measured: async (next, limit) =>
          (
            await this.rows<{ entry: string | null; bytes: number }>(`SELECT ${PG_PULL_MEASURED_SQL} ${range}`, [
              contractId,
              next,
              end,
              limit,
            ])
          ).map((r) => r.entry ?? r.bytes),
        texts: async (next, count) =>
          (
            await this.rows<{ entry: string }>(`SELECT ${PULL_ENTRY_SQL} AS entry ${range}`, [
              contractId,
              next,
              end,
              count,
            ])
          ).map((r) => r.entry),
      },
      from,
      end,
      this.pageSize,
    );
  }

  async getCommitByHash(contractId: string, hash: string): Promise<StoredCommit | null> {
    const [row] = await this.rows<CommitRow>(PG_BY_HASH.commit, [contractId, hash]);
    return row === undefined ? null : commitFromRow(row);
  }

  async storedHashes(contractId: string, hashes: readonly string[]): Promise<Set<string>> {
    if (hashes.length === 0) return new Set();
    const rows = await this.rows<{ hash: string }>(PG_BY_HASH.stored, [contractId, [...hashes]]);
    return new Set(rows.map((r) => r.hash));
  }

  async getCommitAt(contractId: string, index: number): Promise<StoredCommit | null> {
    const [row] = await this.rows<CommitRow>(
      `SELECT ${COMMIT_COLUMNS} FROM commits WHERE contract_id = $1 AND idx = $2`,
      [contractId, index],
    );
    return row === undefined ? null : commitFromRow(row);
  }

  async treeSize(): Promise<number> {
    const [row] = await this.rows<{ size: number }>("SELECT size FROM tlog_size WHERE id = 1", []);
    return row?.size ?? 0;
  }

  async readTreeNodes(ids: readonly NodeId[]): Promise<Map<string, Buffer>> {
    return readPgTreeNodes(this.pool, ids);
  }

  async findLeaf(hash: string): Promise<LeafRecord | null> {
    const [row] = await this.rows<{ contract_id: string; idx: number; leaf_index: number }>(PG_BY_HASH.leaf, [hash]);
    return row === undefined ? null : { contractId: row.contract_id, index: row.idx, leafIndex: row.leaf_index };
  }

  async logKeySeed(): Promise<Buffer> {
    // The first instance to ask stores a key; every later one (and every restart) reads it.
    // None is stored once a key is recorded: instances given that key as a file sign already.
    await this.writeStatement(
      `INSERT INTO tlog_key (id, seed) SELECT 1, $1 WHERE NOT EXISTS (SELECT 1 FROM tlog_public_key)
         ON CONFLICT DO NOTHING`,
      [encodeHex(generateKeyPair().seed)],
    );
    const [row] = await this.rows<{ seed: string | null; public_key: string | null }>(
      `SELECT (SELECT seed FROM tlog_key WHERE id = 1) AS seed,
              (SELECT public_key FROM tlog_public_key WHERE id = 1) AS public_key`,
      [],
    );
    if (row!.seed === null) throw noSeedForLogKey(row!.public_key!);
    return Buffer.from(row!.seed, "hex");
  }

  async recordLogKey(publicKey: Buffer, origin: string): Promise<RecordedLogKey> {
    // Two statements: the SELECT's snapshot sees the row of an instance that won the INSERT's
    // race. The UPDATE's condition is checked on the row as the winner left it (ON CONFLICT
    // locks it), so of instances giving a key recorded without origin two origins, one wins.
    await this.writeStatement(
      `INSERT INTO tlog_public_key (id, public_key, origin) VALUES (1, $1, $2)
         ON CONFLICT (id) DO UPDATE SET origin = excluded.origin
         WHERE tlog_public_key.origin IS NULL AND tlog_public_key.public_key = excluded.public_key`,
      [encodeHex(publicKey), origin],
    );
    const [row] = await this.rows<{ public_key: string; origin: string | null }>(
      "SELECT public_key, origin FROM tlog_public_key WHERE id = 1",
      [],
    );
    return { publicKey: Buffer.from(row!.public_key, "hex"), origin: row!.origin };
  }

  async readCosignedCheckpoint(): Promise<CosignedCheckpointRecord | null> {
    const [row] = await this.rows<CosignedCheckpointRecord>(
      "SELECT size, root, note AS checkpoint FROM tlog_cosigned WHERE id = 1",
      [],
    );
    return row ?? null;
  }

  async saveCosignedCheckpoint(c: CosignedCheckpointRecord): Promise<boolean> {
    // ON CONFLICT takes the row's lock and checks the WHERE against the committed row, so
    // two instances storing at once leave the larger tree, whatever their order.
    const result = await this.writeStatement(
      `INSERT INTO tlog_cosigned (id, size, root, note) VALUES (1, $1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET size = excluded.size, root = excluded.root, note = excluded.note
         WHERE excluded.size > tlog_cosigned.size`,
      [c.size, c.root, c.checkpoint],
    );
    return result.rowCount === 1;
  }

  async setGrant(contractId: string, identity: string, role: GrantRole | "none", at: number): Promise<void> {
    if (role === "none") {
      await this.writeStatement("DELETE FROM grants WHERE contract_id = $1 AND identity = $2", [contractId, identity]);
      return;
    }
    await this.writeStatement(
      `INSERT INTO grants (contract_id, identity, role, granted_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (contract_id, identity) DO UPDATE SET role = excluded.role, granted_at = excluded.granted_at`,
      [contractId, identity, role, at],
    );
  }

  async getGrant(contractId: string, identity: string): Promise<GrantRole | null> {
    const [row] = await this.rows<{ role: GrantRole }>(
      "SELECT role FROM grants WHERE contract_id = $1 AND identity = $2",
      [contractId, identity],
    );
    return row?.role ?? null;
  }

  async listGrants(contractId: string): Promise<{ identity: string; role: GrantRole }[]> {
    return this.rows("SELECT identity, role FROM grants WHERE contract_id = $1 ORDER BY granted_at, identity", [
      contractId,
    ]);
  }

  async registerAccessKey(identity: string, accessKey: string, createdAt: number): Promise<AccessKeyRecord> {
    return this.write(async (client) => {
      // Rolled back with the rest when the key turns out to be taken: no stray identity.
      await client.query("INSERT INTO identities (identity, created_at) VALUES ($1, $2) ON CONFLICT DO NOTHING", [
        identity,
        createdAt,
      ]);
      // DO NOTHING, then read: a concurrent registration of the same key (another instance)
      // is waited for, and the outcome decided on the committed row.
      const { rows } = await client.query<AccessKeyRow>(
        `INSERT INTO access_keys (access_key, identity, created_at, revoked_at) VALUES ($1, $2, $3, NULL)
           ON CONFLICT (access_key) DO NOTHING RETURNING *`,
        [accessKey, identity, createdAt],
      );
      if (rows[0] !== undefined) return accessKeyFromRow(rows[0]);
      const [existing] = (
        await client.query<AccessKeyRow>("SELECT * FROM access_keys WHERE access_key = $1", [accessKey])
      ).rows;
      if (existing!.revoked_at !== null)
        throw new ContractError("CONFLICT", "Cannot register access key: it was revoked", {
          reason: "access_key_revoked",
        });
      if (existing!.identity !== identity)
        throw new ContractError("CONFLICT", "Cannot register access key: it belongs to another identity", {
          reason: "access_key_taken",
        });
      return accessKeyFromRow(existing!);
    });
  }

  async getAccessKey(accessKey: string): Promise<AccessKeyRecord | null> {
    const [row] = await this.rows<AccessKeyRow>("SELECT * FROM access_keys WHERE access_key = $1", [accessKey]);
    return row === undefined ? null : accessKeyFromRow(row);
  }

  async revokeAccessKey(accessKey: string, at: number): Promise<AccessKeyRecord | null> {
    return this.write(async (client) => {
      await client.query("UPDATE access_keys SET revoked_at = $1 WHERE access_key = $2 AND revoked_at IS NULL", [
        at,
        accessKey,
      ]);
      const [row] = (await client.query<AccessKeyRow>("SELECT * FROM access_keys WHERE access_key = $1", [accessKey]))
        .rows;
      return row === undefined ? null : accessKeyFromRow(row);
    });
  }

  async listAccessKeys(identity: string): Promise<AccessKeyRecord[]> {
    const rows = await this.rows<AccessKeyRow>(
      "SELECT * FROM access_keys WHERE identity = $1 ORDER BY created_at, access_key",
      [identity],
    );
    return rows.map(accessKeyFromRow);
  }

  async useNonce(accessKey: string, nonce: string, expiresAt: number): Promise<boolean> {
    const now = Math.floor(Date.now() / 1000);
    // One autocommit statement: a live row (also one another instance wrote a moment ago:
    // ON CONFLICT waits for it) means a replay.
    const r = await this.writeStatement(INSERT_NONCE, nonceParams({ accessKey, nonce, expiresAt }, now));
    await this.sweepNonces(now);
    return r.rowCount === 1;
  }

  /**
   * Deletes expired nonces at most once a second per instance (not on every write as in
   * SQLite, where it is free): many instances deleting the same rows at once would only contend.
   */
  private async sweepNonces(now: number): Promise<void> {
    if (now === this.lastNonceSweep) return;
    this.lastNonceSweep = now;
    await this.pool.query("DELETE FROM nonces WHERE expires_at < $1", [now]).catch(() => {});
  }

  async getAssets(contractId: string): Promise<{ assets: AssetRecord[]; balances: BalanceRecord[] }> {
    const assets = await this.rows<AssetRecord>(
      `SELECT issuer, asset_id AS "assetId", quantity, divisibility FROM assets WHERE issuer = $1 ORDER BY asset_id`,
      [contractId],
    );
    const balances = await this.rows<BalanceRecord>(
      `SELECT issuer, asset_id AS "assetId", amount FROM balances WHERE contract_id = $1 ORDER BY issuer, asset_id`,
      [contractId],
    );
    return { assets, balances };
  }

  async getAssetsPage(contractId: string, page: { limit: number; offset: number }): Promise<AssetsPage> {
    const p = [contractId, page.limit, page.offset];
    const assets = await this.rows<AssetRecord>(
      `SELECT issuer, asset_id AS "assetId", quantity, divisibility FROM assets WHERE issuer = $1
        ORDER BY asset_id LIMIT $2 OFFSET $3`,
      p,
    );
    const balances = await this.rows<BalanceRecord>(
      `SELECT issuer, asset_id AS "assetId", amount FROM balances WHERE contract_id = $1
        ORDER BY issuer, asset_id LIMIT $2 OFFSET $3`,
      p,
    );
    const [totals] = await this.rows<{ assets: number; balances: number }>(
      `SELECT (SELECT COUNT(*) FROM assets WHERE issuer = $1) AS assets,
              (SELECT COUNT(*) FROM balances WHERE contract_id = $1) AS balances`,
      [contractId],
    );
    return { assets, balances, assetsTotal: totals!.assets, balancesTotal: totals!.balances };
  }

  async getAsset(issuer: string, assetId: string): Promise<AssetRecord | null> {
    const [row] = await this.rows<AssetRecord>(
      `SELECT issuer, asset_id AS "assetId", quantity, divisibility FROM assets WHERE issuer = $1 AND asset_id = $2`,
      [issuer, assetId],
    );
    return row ?? null;
  }

  async getBalancesNamed(holder: string, assetId: string, issuer?: string): Promise<BalanceRecord[]> {
    return issuer === undefined
      ? this.rows<BalanceRecord>(
          `SELECT issuer, asset_id AS "assetId", amount FROM balances WHERE contract_id = $1 AND asset_id = $2 ORDER BY issuer`,
          [holder, assetId],
        )
      : this.rows<BalanceRecord>(
          `SELECT issuer, asset_id AS "assetId", amount FROM balances WHERE contract_id = $1 AND issuer = $2 AND asset_id = $3`,
          [holder, issuer, assetId],
        );
  }

  async getSend(commitHash: string): Promise<SendRecord | null> {
    const [row] = await this.rows<SendRecord>(
      `SELECT s.commit_hash AS "commitHash", s.from_contract AS "from", s.to_contract AS "to", s.issuer,
              s.asset_id AS "assetId", s.amount, r.recv_commit_hash AS "receivedBy"
         FROM sends s LEFT JOIN receipts r ON r.send_commit_hash = s.commit_hash WHERE s.commit_hash = $1`,
      [commitHash],
    );
    return row ?? null;
  }

  async getSendFiling(commitHash: string): Promise<SendFiling | null> {
    const [row] = await this.rows<{ leafIndex: number | null; received: number }>(
      `SELECT leaf_index AS "leafIndex", received FROM sends WHERE commit_hash = $1`,
      [commitHash],
    );
    return row === undefined ? null : { leafIndex: row.leafIndex, received: row.received !== 0 };
  }

  async listIncomingSends(
    contractId: string,
    q: { pending: boolean; limit: number; offset: number },
  ): Promise<{ sends: IncomingSendRecord[]; total: number }> {
    const [count] = await this.rows<{ n: number }>(PG_BY_HASH.incomingTotal(q.pending), [contractId]);
    const sends = await this.rows<IncomingSendRecord>(PG_BY_HASH.incoming(q.pending), [contractId, q.limit, q.offset]);
    return { sends, total: count?.n ?? 0 };
  }

  async saveProposal(
    proposal: ProposalRecord,
    q: { maxOpen: number; now: number },
  ): Promise<{ proposal: ProposalRecord; created: boolean }> {
    const params = await proposalParamsInSlices(proposal);
    return this.write((client) => savePgProposal(client, this.channels.proposals, proposal, params, q));
  }

  async getProposal(contractId: string, hash: string): Promise<ProposalRecord | null> {
    return readPgProposal(this.pool, contractId, hash);
  }

  async listProposals(
    contractId: string,
    q: { status: ProposalStatus; now: number; limit: number; offset: number },
  ): Promise<ProposalRecord[]> {
    return listPgProposals(this.pool, contractId, q);
  }

  async addProposalSignatures(
    contractId: string,
    hash: string,
    signatures: Record<string, string>,
    judged: Record<string, string>,
  ): Promise<ProposalRecord | null> {
    return this.write((client) =>
      addPgSignatures(client, this.channels.proposals, contractId, hash, signatures, judged),
    );
  }

  async withdrawProposal(contractId: string, hash: string): Promise<ProposalRecord | null> {
    return this.write((client) => withdrawPgProposal(client, this.channels.proposals, contractId, hash));
  }

  async saveSnapshot(s: StateSnapshot): Promise<void> {
    await this.writeStatement(
      `INSERT INTO state_snapshots (contract_id, length, head, format, state, digest) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (contract_id) DO UPDATE SET length = excluded.length, head = excluded.head,
           format = excluded.format, state = excluded.state, digest = excluded.digest
         WHERE excluded.length > state_snapshots.length
            OR (excluded.length = state_snapshots.length
                AND (excluded.format, excluded.head, excluded.state, excluded.digest)
                 <> (state_snapshots.format, state_snapshots.head, state_snapshots.state, state_snapshots.digest))`,
      [s.contractId, s.length, s.head, s.format, s.state, s.digest],
    );
  }

  async readSnapshot(contractId: string): Promise<StateSnapshot | null> {
    const [row] = await this.rows<StateSnapshot>(
      `SELECT ${SNAPSHOT_COLUMNS} FROM state_snapshots WHERE contract_id = $1`,
      [contractId],
    );
    return row ?? null;
  }

  async listSnapshots(): Promise<StateSnapshot[]> {
    return this.rows<StateSnapshot>(`SELECT ${SNAPSHOT_COLUMNS} FROM state_snapshots ORDER BY contract_id`, []);
  }

  stats(): StoreStats {
    return { ...this.counters };
  }
}
