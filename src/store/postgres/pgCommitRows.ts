import type { PoolClient } from "pg";
import type { StoredCommit } from "../../contract/StoredCommit.js";
import { commitInsertInSlices, isBigStoredCommit } from "../commitInsertInSlices.js";
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

/**
 * A big commit's row alone, each column a plain parameter (../commitInsertInSlices.ts). In a column
 * array, pg escapes each element's quotes and backslashes in one piece: 250-350 ms for the
 * data of an object of 400,000 members. A plain text parameter is sent as it is.
 */
const INSERT_COMMIT = `INSERT INTO commits (${INSERT_COLUMNS}) VALUES (${INSERT_COLUMNS.split(",")
  .map((_, i) => `$${i + 1}`)
  .join(", ")})`;

/**
 * Inserts `commits` of `contractId` inside the caller's transaction, INSERT_ROWS a statement. A
 * commit whose values are big (isBigStoredCommit: its data or its attestations) has those
 * columns written in the shared slices (one JSON.stringify held the loop 430 ms to 1.7 s) and goes in a statement of its
 * own (INSERT_COMMIT); the others are built at once, with no await of their own (docs/benchmarks.md,
 * "Twelfth round").
 */
export async function insertCommits(client: PoolClient, contractId: string, commits: readonly StoredCommit[]) {
  let columns = emptyColumns();
  let rows = 0;
  for (const c of commits) {
    if (isBigStoredCommit(c)) {
      // The rows gathered before it go first, so the statements keep the commits' order.
      if (rows > 0) {
        await client.query(INSERT_COMMITS, [contractId, ...columns]);
        [columns, rows] = [emptyColumns(), 0];
      }
      const row = await commitInsertInSlices(c);
      await client.query(INSERT_COMMIT, commitParams(contractId, row));
      continue;
    }
    const params = commitParams(contractId, commitInsert(c));
    for (let k = 0; k < ARRAYS; k++) columns[k]!.push(params[k + 1]);
    if (++rows < INSERT_ROWS) continue;
    await client.query(INSERT_COMMITS, [contractId, ...columns]);
    [columns, rows] = [emptyColumns(), 0];
  }
  if (rows > 0) await client.query(INSERT_COMMITS, [contractId, ...columns]);
}

const emptyColumns = (): unknown[][] => Array.from({ length: ARRAYS }, () => []);
