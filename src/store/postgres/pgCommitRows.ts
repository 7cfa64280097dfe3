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
 * One statement for the whole batch: the columns travel as column arrays and `unnest` turns
 * them back into rows (~25x a row-per-round-trip loop). The JSON
 * columns are serialised exactly as the SQLite store does (commitParams), so both stores
 * hold the same bytes.
 */
const INSERT_COMMITS = `INSERT INTO commits (${INSERT_COLUMNS})
  SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::bigint[])`;
/** Columns after contract_id. */
const ARRAYS = 9;

/** Inserts `commits` of `contractId` in one round trip. */
export async function insertCommits(client: PoolClient, contractId: string, commits: readonly StoredCommit[]) {
  const columns: unknown[][] = Array.from({ length: ARRAYS }, () => new Array(commits.length));
  commits.forEach((c, i) => {
    const params = commitParams(contractId, commitInsert(c));
    for (let k = 0; k < ARRAYS; k++) columns[k]![i] = params[k + 1];
  });
  await client.query(INSERT_COMMITS, [contractId, ...columns]);
}
