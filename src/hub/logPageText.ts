import type { Caller } from "../api/Caller.js";
import type { LogEntry } from "../contract/Commit.js";
import type { HubContext } from "./HubContext.js";
import { jsonChunks } from "./jsonChunks.js";

/**
 * HubApi.getLogText: the JSON text of a page of the log (read by readLogPage, which admitted
 * and charged the read) in pieces whose building is charged to `caller` too, as a pull's pages
 * are. Only the time spent building them is charged: over REST the pieces are asked for as the
 * socket drains, and the time a slow reader keeps the page waiting is idle time of the hub's,
 * not work of the caller's.
 */
export async function* logPageText(
  hub: HubContext,
  caller: Caller,
  page: { commits: LogEntry[]; total: number },
): AsyncGenerator<string> {
  const slice = hub.work.slice(caller);
  try {
    for await (const piece of jsonChunks(page, slice.tick)) {
      hub.work.charge(caller, slice.finish());
      try {
        yield piece;
      } finally {
        // Resumed (or ended early, its reader gone): the wait is not the caller's work.
        slice.begin();
      }
    }
  } finally {
    slice.done();
  }
}
