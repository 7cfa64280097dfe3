import type { StoredCommit } from "../../contract/StoredCommit.js";
import { sliceIsDue, yieldSometimes } from "../../lib/sharedSlice.js";
import { commitInsertInSlices, isBigStoredCommit } from "../commitInsertInSlices.js";
import type { AppendExtras } from "../Store.js";
import { type CommitInsert, commitInsert } from "./commitRows.js";
import type { SqliteWriter } from "./SqliteWriter.js";

const oneRow = (c: StoredCommit) => commitInsert(c);

/** Rows built between two looks at the shared slice (a look costs a clock read). */
const CHECK_EVERY = 32;
/** Rows of one part at most: cloning a part for the writer thread stays a small step. */
export const PART_ROWS = 1_000;

/**
 * Runs appendCommits of `commits` on `writer` (docs/storage.md, "The writer thread
 * and group commit"). Building a row serialises the commit's JSON columns, and the
 * rows are cloned to reach the writer thread: for 10,000 commits, 45–85 ms of the event loop
 * in one piece. So a big append's rows are built in the hub's shared time slices and go ahead
 * in parts, each cloned on its own; the writer stages them, and the append's own message (its
 * last rows) runs them all in its one transaction. An append of a few commits, the common
 * case, is built at once and sent as one message, as before. A commit whose values are big
 * (isBigStoredCommit: its data or its attestations) has those columns written in slices too
 * (commitInsertInSlices.ts).
 *
 * The loop awaits only when the slice is due: an await per row would let the microtasks run
 * each time, which is what regressed pushes once (docs/benchmarks.md, "Twelfth round").
 */
export async function appendInParts(
  writer: SqliteWriter,
  contractId: string,
  expectedHead: string | null,
  commits: StoredCommit[],
  extras: AppendExtras,
): Promise<number> {
  if (commits.length <= CHECK_EVERY && !commits.some(isBigStoredCommit)) {
    return writer.run("appendCommits", contractId, expectedHead, commits.map(oneRow), extras);
  }
  const staged = writer.staging();
  try {
    let rows: CommitInsert[] = [];
    for (let i = 0; i < commits.length; i++) {
      const c = commits[i]!;
      // A big commit's values are serialised in slices (commitInsertInSlices.ts); the others at once.
      rows.push(isBigStoredCommit(c) ? await commitInsertInSlices(c) : commitInsert(c));
      const more = i + 1 < commits.length;
      if (!more || (rows.length < PART_ROWS && (rows.length % CHECK_EVERY !== 0 || !sliceIsDue()))) continue;
      // Full, or the slice is used up with commits still to come: these rows go ahead.
      writer.stage(staged, rows);
      rows = [];
      if (sliceIsDue()) await yieldSometimes();
    }
    if (staged.parts === 0) return await writer.run("appendCommits", contractId, expectedHead, rows, extras);
    return await writer.runStaged(staged, contractId, expectedHead, rows, extras);
  } catch (err) {
    // Parts staged for an append that failed here (or was refused) are dropped.
    if (staged.parts > 0) writer.discard(staged);
    throw err;
  }
}
