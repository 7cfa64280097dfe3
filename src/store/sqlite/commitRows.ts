import type { StoredCommit } from "../../contract/StoredCommit.js";

/** A `commits` row as SQLite returns it. */
export interface CommitRow {
  idx: number;
  hash: string;
  parent: string | null;
  data: string;
  signatures: string;
  attestations: string | null;
  timestamp: number;
  signers: string;
  leaf_index: number | null;
}

/** Columns selected for a CommitRow, in one place so every query reads the same shape. */
export const COMMIT_COLUMNS = "idx, hash, parent, data, signatures, attestations, timestamp, signers, leaf_index";

/** The row's StoredCommit (JSON columns parsed). */
export function commitFromRow(row: CommitRow): StoredCommit {
  const commit: StoredCommit = {
    index: row.idx,
    hash: row.hash,
    parent: row.parent,
    data: JSON.parse(row.data),
    signatures: JSON.parse(row.signatures),
    timestamp: row.timestamp,
    signers: JSON.parse(row.signers),
  };
  if (row.attestations !== null) commit.attestations = JSON.parse(row.attestations);
  if (row.leaf_index !== null) commit.leafIndex = row.leaf_index;
  return commit;
}

/**
 * The columns of an INSERT INTO commits, in the order of commitParams. Not `wire`: since
 * schema version 10 each commit's bytes are stored once, in these columns (docs/storage.md).
 */
export const INSERT_COLUMNS =
  "contract_id, idx, hash, parent, data, signatures, attestations, timestamp, signers, leaf_index";

/** One `?` per column of INSERT_COLUMNS. */
export const INSERT_PLACEHOLDERS = INSERT_COLUMNS.split(",")
  .map(() => "?")
  .join(", ");

/**
 * A commit as the store inserts it: its place in the chain and each JSON column already
 * serialised. The SQLite store builds these on the event loop and hands them to its writer
 * thread: a few strings cross a thread for less than the commit's objects do.
 */
export interface CommitInsert {
  index: number;
  hash: string;
  parent: string | null;
  timestamp: number;
  data: string;
  signatures: string;
  attestations: string | null;
  signers: string;
  leafIndex?: number;
}

/** Each JSON column of `c` serialised once. */
export function commitInsert(c: StoredCommit): CommitInsert {
  const row: CommitInsert = {
    index: c.index,
    hash: c.hash,
    parent: c.parent,
    timestamp: c.timestamp,
    data: JSON.stringify(c.data),
    signatures: JSON.stringify(c.signatures),
    attestations: c.attestations === undefined || c.attestations.length === 0 ? null : JSON.stringify(c.attestations),
    signers: JSON.stringify(c.signers),
  };
  if (c.leafIndex !== undefined) row.leafIndex = c.leafIndex;
  return row;
}

/** The bind parameters of an INSERT INTO commits (INSERT_COLUMNS). */
export function commitParams(contractId: string, c: CommitInsert): unknown[] {
  return [
    contractId,
    c.index,
    c.hash,
    c.parent,
    c.data,
    c.signatures,
    c.attestations,
    c.timestamp,
    c.signers,
    c.leafIndex ?? null,
  ];
}
