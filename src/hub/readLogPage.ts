import type { Caller } from "../api/Caller.js";
import type { PageQuery } from "../api/schemas.js";
import type { LogEntry } from "../contract/Commit.js";
import { toLogEntry } from "../contract/StoredCommit.js";
import type { HubContext } from "./HubContext.js";
import { yieldSometimes } from "./heavy/TimeSlice.js";
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

/** `GET /contracts/:id/log` (and `/commits`, JSON-RPC `getLog`): a page of log entries, bounded in bytes. */
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
  for await (const c of hub.store.readCommits(id, offset, Math.min(offset + limit, record.length))) {
    const entry = toLogEntry(c);
    // The value dominates an entry's size; the rest is a few hundred bytes at most.
    bytes += 512 + (entry.value === undefined ? 0 : valueBytes(entry.value));
    if (commits.length > 0 && bytes > LOG_PAGE_BYTES) break;
    commits.push(entry);
    // Reading a page near its bound is tens of milliseconds: the loop serves others meanwhile.
    await yieldSometimes();
  }
  return { commits, total: record.length };
}

/** About how many bytes `value` serializes to: a string's length, else its JSON text's. */
function valueBytes(value: unknown): number {
  return typeof value === "string" ? value.length : JSON.stringify(value).length;
}
