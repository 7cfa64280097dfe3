import type { Caller } from "../api/Caller.js";
import type { PageQuery } from "../api/schemas.js";
import type { LogEntry } from "../contract/Commit.js";
import { toLogEntry } from "../contract/StoredCommit.js";
import type { HubContext } from "./HubContext.js";
import { pageQuery } from "./pageQuery.js";

/**
 * Serialized bytes of log entries one page carries at most (always at least one entry). A log
 * entry carries its first operation's value, up to a megabyte, so a page of 1,000 entries could
 * be a gigabyte: one anonymous `GET /contracts/:id/log?limit=1000` on a contract of 300 such
 * commits held the event loop 1.5 s and half a gigabyte of memory, and a few at once could
 * exhaust the process. A page past this size ends early; `total` and the number of entries
 * returned tell the client where the next page starts (docs/api.md).
 */
export const LOG_PAGE_BYTES = 8 * 1024 * 1024;

/**
 * Bytes of entries (counted as for LOG_PAGE_BYTES) past which a page is expensive work of the
 * caller's, admitted by its work budget before it reads on, as a pull of more than 1,000
 * commits is. A page of 1,000 entries of values under about 500 bytes stays under it, so
 * ordinary pages are never refused (they are charged); one near 8 MiB was free, and could be
 * asked for in a loop.
 */
export const BIG_LOG_PAGE_BYTES = 1024 * 1024;

/**
 * `GET /contracts/:id/log` (and `/commits`, JSON-RPC `getLog`): a page of log entries, bounded
 * in bytes. It is read in slices charged to the caller; past BIG_LOG_PAGE_BYTES the caller's
 * work budget is asked (429 `work_budget` when spent) before the page reads on.
 */
export async function readLogPage(
  hub: HubContext,
  caller: Caller,
  id: string,
  q: PageQuery,
): Promise<{ commits: LogEntry[]; total: number }> {
  const { limit, offset } = pageQuery(q);
  const { record } = await hub.access(caller, id, "read");
  const commits: LogEntry[] = [];
  let bytes = 0;
  const slice = hub.work.slice(caller);
  try {
    for await (const c of hub.store.readCommits(id, offset, Math.min(offset + limit, record.length))) {
      const entry = toLogEntry(c);
      // The value dominates an entry's size; the rest is a few hundred bytes at most.
      const before = bytes;
      bytes += 512 + (entry.value === undefined ? 0 : valueBytes(entry.value));
      if (commits.length > 0 && bytes > LOG_PAGE_BYTES) break;
      if (before <= BIG_LOG_PAGE_BYTES && bytes > BIG_LOG_PAGE_BYTES) hub.work.admit(caller);
      commits.push(entry);
      // Reading a page near its bound is tens of milliseconds: the loop serves others meanwhile.
      await slice.tick();
    }
  } finally {
    slice.done();
  }
  return { commits, total: record.length };
}

/** About how many bytes `value` serializes to: a string's length, else its JSON text's. */
function valueBytes(value: unknown): number {
  return typeof value === "string" ? value.length : JSON.stringify(value).length;
}
