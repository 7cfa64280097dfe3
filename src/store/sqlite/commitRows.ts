import { ContractError } from "../../contract/ContractError.js";
import type { StoredCommit } from "../../contract/StoredCommit.js";
import { parseStoredJson } from "./parseStoredJson.js";

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

/**
 * A `data` (or `attestations`) column at least this long (characters) is parsed in the shared
 * slices: one JSON.parse of a commit holding a 15 MB value held the event loop 17-90 ms.
 */
export const BIG_ROW_CHARS = 256 * 1024;

/**
 * The row's StoredCommit (JSON columns parsed). A row whose data is big comes as a promise,
 * parsed in slices; every store returns it from an async function or yields it from an async
 * generator, which await it, so a small row costs no promise of its own.
 */
export function commitFromRow(row: CommitRow): StoredCommit | Promise<StoredCommit> {
  if (row.data.length >= BIG_ROW_CHARS || (row.attestations?.length ?? 0) >= BIG_ROW_CHARS)
    return commitFromBigRow(row);
  return rowCommit(row, JSON.parse(row.data));
}

function rowCommit(
  row: CommitRow,
  data: StoredCommit["data"],
  attestations: StoredCommit["attestations"] = row.attestations === null ? undefined : JSON.parse(row.attestations),
): StoredCommit {
  const commit: StoredCommit = {
    index: row.idx,
    hash: row.hash,
    parent: row.parent,
    data,
    signatures: JSON.parse(row.signatures),
    timestamp: row.timestamp,
    signers: JSON.parse(row.signers),
  };
  if (attestations !== undefined) commit.attestations = attestations;
  if (row.leaf_index !== null) commit.leafIndex = row.leaf_index;
  return commit;
}

/**
 * The data parsed in slices (parseStoredJson.ts), charged to nobody (the store's reads are the hub's
 * own work). The stored text is JSON.stringify of values checked on the way in, so the
 * hardened parse gives what JSON.parse gives; a text it refuses is a damaged row, reported
 * as JSON.parse reports one (a SyntaxError, which the load path names as CORRUPTED).
 */
async function commitFromBigRow(row: CommitRow): Promise<StoredCommit> {
  try {
    const data = (await parseColumn(row.data)) as StoredCommit["data"];
    const attestations = row.attestations === null ? undefined : await parseColumn(row.attestations);
    return rowCommit(row, data, attestations as StoredCommit["attestations"]);
  } catch (err) {
    if (err instanceof ContractError) throw new SyntaxError(err.message, { cause: err });
    throw err;
  }
}

/** A JSON column of a big row (its data, or its attestations, whose values are any JSON): big ones in slices. */
export const parseColumn = (text: string) => (text.length >= BIG_ROW_CHARS ? parseStoredJson(text) : JSON.parse(text));

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

/**
 * Each JSON column of `c` serialised once (`data` and `attestations` given when they were
 * written in slices: commitInsertInSlices.ts).
 */
export function commitInsert(
  c: StoredCommit,
  data = JSON.stringify(c.data),
  attestations = c.attestations === undefined || c.attestations.length === 0 ? null : JSON.stringify(c.attestations),
): CommitInsert {
  const row: CommitInsert = {
    index: c.index,
    hash: c.hash,
    parent: c.parent,
    timestamp: c.timestamp,
    data,
    signatures: JSON.stringify(c.signatures),
    attestations,
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
