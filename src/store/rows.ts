/** Rows of the shared schema (schema.ts) and their records, for both stores. */
import type { AccessKeyRecord, ContractRecord } from "./Store.js";

/** A `contracts` row (PostgreSQL BIGINT columns arrive as numbers too: see postgres/pgPool.ts). */
export interface ContractRow {
  id: string;
  owner: string;
  created_at: number;
  head: string;
  length: number;
  private: number;
}

/** An `access_keys` row. */
export interface AccessKeyRow {
  access_key: string;
  identity: string;
  created_at: number;
  revoked_at: number | null;
}

/** The record of a contracts row. */
export const contractFromRow = (r: ContractRow): ContractRecord => ({
  id: r.id,
  owner: r.owner,
  createdAt: r.created_at,
  head: r.head,
  length: r.length,
  private: r.private !== 0,
});

/** The record of an access_keys row. */
export const accessKeyFromRow = (r: AccessKeyRow): AccessKeyRecord => ({
  accessKey: r.access_key,
  identity: r.identity,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

/** Columns of a `state_snapshots` row, named as a StateSnapshot's fields. */
export const SNAPSHOT_COLUMNS = 'contract_id AS "contractId", length, head, format, state, digest';
