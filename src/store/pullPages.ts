/**
 * The pages of a pull (Store.readPullTexts), bounded by their text as well as by rows, for
 * both stores. A page was 1,024 entries whatever their size, read and joined in one
 * synchronous SQLite statement: 64 commits of 200,000-character values were one page of
 * 25 MB, and while it was read, joined and written a GET /health waited 95–173 ms (median of
 * ten pulls; docs/benchmarks.md, "Pull pages bounded by their text").
 *
 * Each read is one statement over up to `rows` entries that answers a short entry's text (at
 * most PULL_SHORT_ENTRY bytes, no attestations) and only the length of a longer one
 * (PULL_ENTRY_BYTES_SQL, which the database computes without reading the text), so one read
 * joins at most `rows` KiB. The entries are cut into pages of at most PULL_PAGE_CHARS
 * characters (always at least one entry); the ones past the cut start the next page, never
 * read twice. A page that holds a long entry has its texts joined by a second statement over
 * exactly its rows. A pull of short commits keeps one statement, and pages of up to `rows`
 * entries, as before.
 */
import { PULL_ENTRY_BYTES_SQL, PULL_ENTRY_OVERHEAD, PULL_ENTRY_SQL } from "./commitText.js";

/**
 * Characters of entry text a pull page holds at most, unless its one entry is longer. A long
 * entry counts its UTF-8 bytes, never fewer than its characters.
 */
export const PULL_PAGE_CHARS = 512 * 1024;

/** Entries of at most this many bytes are joined by the read that measures them. */
export const PULL_SHORT_ENTRY = 1024;

/**
 * Whether an entry is short: no attestations and PULL_ENTRY_BYTES_SQL at most PULL_SHORT_ENTRY.
 * The measuring read asks it of every row; asked this way (two lengths, one test of NULL) it
 * costs a pull of 10,001 short commits about half a millisecond of SQLite's time, the whole
 * length twice that.
 */
const SHORT = `attestations IS NULL AND 2 * octet_length(data) + octet_length(signatures) <= ${PULL_SHORT_ENTRY - PULL_ENTRY_OVERHEAD}`;

/**
 * The measuring read's one column in SQLite, whose values carry their own type: the entry's
 * text when short, else its length in bytes. One plucked column is what keeps a pull of short
 * commits as fast as before: a second column cost it about a tenth more.
 */
export const PULL_MEASURED_SQL = `CASE WHEN ${SHORT} THEN ${PULL_ENTRY_SQL} ELSE ${PULL_ENTRY_BYTES_SQL} END`;

/** The same in PostgreSQL, whose columns have one type: `entry` (NULL unless short) and `bytes`. */
export const PG_PULL_MEASURED_SQL = `CASE WHEN ${SHORT} THEN ${PULL_ENTRY_SQL} END AS entry, ${PULL_ENTRY_BYTES_SQL} AS bytes`;

/** A store's two reads of the entries with `from <= idx < end` (the end fixed by the store), in index order. */
export interface PullReads {
  /** Up to `limit` entries from `from`: each its text, or its length in bytes when long. */
  measured(from: number, limit: number): Promise<(string | number)[]>;
  /** The texts of exactly the `count` entries from `from` (PULL_ENTRY_SQL). */
  texts(from: number, count: number): Promise<string[]>;
}

/** Pages of the entries with `from <= idx < end`, read `rows` at a time at most. */
export async function* pullPages(reads: PullReads, from: number, end: number, rows: number): AsyncIterable<string[]> {
  let ahead: (string | number)[] = [];
  for (let next = from; next < end; ) {
    if (ahead.length === 0) {
      ahead = await reads.measured(next, rows);
      if (ahead.length === 0) return;
    }
    let count = 0;
    let chars = 0;
    let joined = true;
    for (const entry of ahead) {
      const n = typeof entry === "string" ? entry.length : entry;
      if (count > 0 && chars + n > PULL_PAGE_CHARS) break;
      chars += n;
      count++;
      if (typeof entry !== "string") joined = false;
    }
    let page: string[];
    if (!joined) page = await reads.texts(next, count);
    else page = (count === ahead.length ? ahead : ahead.slice(0, count)) as string[];
    // Rows that changed between the two reads cannot shift the next page: it is measured again.
    ahead = page.length === count && count < ahead.length ? ahead.slice(count) : [];
    if (page.length === 0) return;
    yield page;
    // A contract's indexes have no gap, so a page of n entries ends at next + n.
    next += page.length;
  }
}
