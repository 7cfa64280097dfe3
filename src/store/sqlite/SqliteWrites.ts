import { ContractError } from "../../contract/ContractError.js";
import { checkChain, existsConflict, lengthAtHead } from "../appendPosition.js";
import { replayedNonce } from "../replayedNonce.js";
import { type AccessKeyRow, accessKeyFromRow } from "../rows.js";
import type {
  AccessKeyRecord,
  AppendExtras,
  CosignedCheckpointRecord,
  GrantRole,
  RequestNonce,
  StateSnapshot,
} from "../Store.js";
import { applyAssetEffects } from "./applyAssetEffects.js";
import { type CommitInsert, commitParams, INSERT_COLUMNS, INSERT_PLACEHOLDERS } from "./commitRows.js";
import type Database from "./Database.js";
import {
  addSignaturesSync,
  markAppendedSync,
  markCommittedSync,
  saveProposalSync,
  withdrawSync,
} from "./sqliteProposals.js";
import { appendSqliteLeaves, FrontierCache } from "./sqliteTree.js";

/**
 * Every write of the SQLite store, as synchronous statements on the write connection (the
 * writer thread's, see writerWorker.ts). Each method runs inside one job of a group commit:
 * it throws to roll its own savepoint back. Arguments and results are plain data, since they
 * cross the thread boundary by structured clone.
 */
export class SqliteWrites {
  private readonly statements = new Map<string, Database.Statement>();
  /** The tree's frontier between appends (sqliteTree.ts): this connection's own. */
  private readonly frontier = new FrontierCache();

  constructor(private readonly db: Database.Database) {}

  /** A prepared statement, compiled once per SQL text. */
  private sql(text: string): Database.Statement {
    let st = this.statements.get(text);
    if (st === undefined) this.statements.set(text, (st = this.db.prepare(text)));
    return st;
  }

  private readonly sqlFn = (text: string) => this.sql(text);

  /**
   * One append: the request's nonce (a replay stores nothing), head check, the commits as the
   * next leaves of the tree, inserts, head update, effects. Returns the first commit's leaf index.
   */
  appendCommits(
    contractId: string,
    expectedHead: string | null,
    commits: CommitInsert[],
    extras: AppendExtras,
  ): number {
    if (extras.nonce !== undefined && !this.useNonce(extras.nonce)) throw replayedNonce();
    const row = this.sql("SELECT head, length, private FROM contracts WHERE id = ?").get(contractId) as
      | { head: string; length: number; private: number }
      | undefined;
    let length: number;
    if (expectedHead === null) {
      if (row !== undefined) throw existsConflict(contractId, row);
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
    appendSqliteLeaves(this.sqlFn, commits, this.frontier);
    const insert = this.sql(`INSERT INTO commits (${INSERT_COLUMNS}) VALUES (${INSERT_PLACEHOLDERS})`);
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
      markCommittedSync(this.sqlFn, contractId, extras.proposal, commits.find((c) => c.hash === hash)!.index);
    } else if (expectedHead !== null) {
      // The exact commit of an open proposal, appended without it, is what it proposed: it is
      // committed, not stale (docs/proposals.md).
      markAppendedSync(this.sqlFn, contractId, commits[0]!);
    }
    return commits[0]!.leafIndex!;
  }

  /** Records a nonce; false when it is live already (a replay). */
  useNonce(n: RequestNonce): boolean {
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

  setGrant(contractId: string, identity: string, role: GrantRole | "none", at: number): void {
    if (role === "none") {
      this.sql("DELETE FROM grants WHERE contract_id = ? AND identity = ?").run(contractId, identity);
      return;
    }
    this.sql(
      `INSERT INTO grants (contract_id, identity, role, granted_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (contract_id, identity) DO UPDATE SET role = excluded.role, granted_at = excluded.granted_at`,
    ).run(contractId, identity, role, at);
  }

  registerAccessKey(identity: string, accessKey: string, createdAt: number): AccessKeyRecord {
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
  }

  revokeAccessKey(accessKey: string, at: number): AccessKeyRecord | null {
    this.sql("UPDATE access_keys SET revoked_at = ? WHERE access_key = ? AND revoked_at IS NULL").run(at, accessKey);
    const row = this.sql("SELECT * FROM access_keys WHERE access_key = ?").get(accessKey) as AccessKeyRow | undefined;
    return row === undefined ? null : accessKeyFromRow(row);
  }

  /** `params`: proposalParams's values, its JSON columns as text (sqliteProposals.ts). */
  saveProposal(params: unknown[], q: { maxOpen: number; now: number }) {
    return saveProposalSync(this.sqlFn, params, q);
  }

  addProposalSignatures(
    contractId: string,
    hash: string,
    signatures: Record<string, string>,
    judged: Record<string, string>,
  ) {
    return addSignaturesSync(this.sqlFn, contractId, hash, signatures, judged);
  }

  withdrawProposal(contractId: string, hash: string) {
    return withdrawSync(this.sqlFn, contractId, hash);
  }

  /**
   * Keeps the snapshot unless the contract's stored one is longer, or as long and the same: one
   * as long that differs is one the hub could not use (damaged, another format, another head),
   * written over by the snapshot of its replay.
   */
  saveSnapshot(s: StateSnapshot): void {
    this.sql(
      `INSERT INTO state_snapshots (contract_id, length, head, format, state, digest) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (contract_id) DO UPDATE SET length = excluded.length, head = excluded.head,
           format = excluded.format, state = excluded.state, digest = excluded.digest
         WHERE excluded.length > state_snapshots.length
            OR (excluded.length = state_snapshots.length
                AND (excluded.format, excluded.head, excluded.state, excluded.digest)
                 <> (state_snapshots.format, state_snapshots.head, state_snapshots.state, state_snapshots.digest))`,
    ).run(s.contractId, s.length, s.head, s.format, s.state, s.digest);
  }

  /** Keeps the cosigned checkpoint unless the stored one's tree is at least as large; true when stored. */
  saveCosignedCheckpoint(c: CosignedCheckpointRecord): boolean {
    return (
      this.sql(
        `INSERT INTO tlog_cosigned (id, size, root, note) VALUES (1, ?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET size = excluded.size, root = excluded.root, note = excluded.note
           WHERE excluded.size > tlog_cosigned.size`,
      ).run(c.size, c.root, c.checkpoint).changes === 1
    );
  }

  /**
   * Records the log's public key (hex) and origin unless a key is recorded, and the origin of
   * the recorded key when it has none and is this one (../schema.ts, version 14); the record.
   */
  recordLogKey(publicKey: string, origin: string): { public_key: string; origin: string | null } {
    this.sql(
      `INSERT INTO tlog_public_key (id, public_key, origin) VALUES (1, ?, ?)
         ON CONFLICT (id) DO UPDATE SET origin = excluded.origin
         WHERE tlog_public_key.origin IS NULL AND tlog_public_key.public_key = excluded.public_key`,
    ).run(publicKey, origin);
    return this.sql("SELECT public_key, origin FROM tlog_public_key WHERE id = 1").get() as {
      public_key: string;
      origin: string | null;
    };
  }
}

/** The name of a write: a method of SqliteWrites. */
export type WriteName = keyof SqliteWrites;
