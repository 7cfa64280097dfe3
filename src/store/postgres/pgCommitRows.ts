import type { PoolClient } from "pg";
import type { StoredCommit } from "../../contract/StoredCommit.js";
import {
  COMMIT_COLUMNS,
  type CommitRow,
  commitFromRow,
  commitInsert,
  commitParams,
  INSERT_COLUMNS,
} from "../sqlite/commitRows.js";

export { COMMIT_COLUMNS, type CommitRow, commitFromRow };

/**
 * One statement per INSERT_ROWS commits: the columns travel as column arrays and `unnest` turns
 * them back into rows (~25x a row-per-round-trip loop). The JSON columns are serialised exactly
 * as the SQLite store does (commitParams), so both stores hold the same bytes.
 */
const INSERT_COMMITS = `INSERT INTO commits (${INSERT_COLUMNS})
  SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::bigint[])`;
/** Columns after contract_id. */
const ARRAYS = 9;
/**
 * Commits of one statement at most. Building a statement's rows and pg's serialisation of its
 * arrays run on the event loop in one piece: for 10,000 commits in one statement, 80–190 ms
 * that every other request waited (docs/storage.md, "PostgreSQL"). With 1,000 a statement it
 * is about 10 ms, and the loop serves others while each statement runs; a push of up to 1,000
 * commits is still one round trip.
 */
export const INSERT_ROWS = 1_000;

/** Inserts `commits` of `contractId` inside the caller's transaction, INSERT_ROWS a statement. */
export async function insertCommits(client: PoolClient, contractId: string, commits: readonly StoredCommit[]) {
  for (let at = 0; at < commits.length; at += INSERT_ROWS) {
    const count = Math.min(INSERT_ROWS, commits.length - at);
    const columns: unknown[][] = Array.from({ length: ARRAYS }, () => new Array(count));
    for (let i = 0; i < count; i++) {
      const params = commitParams(contractId, commitInsert(commits[at + i]!));
      for (let k = 0; k < ARRAYS; k++) columns[k]![i] = params[k + 1];
    }
    await client.query(INSERT_COMMITS, [contractId, ...columns]);
  }
}
