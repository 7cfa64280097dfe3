/**
 * Push and pull of whole logs over HubClient, in pages: a pull that follows `has_more`, and a
 * push split into requests with a progress callback (the command line draws its bar from it).
 */
import type { PulledCommit, WireCommit } from "../contract/Commit.js";
import type { HubClient } from "./HubClient.js";

/** Every commit after `since` (all from genesis when absent), page by page; `head` as of the last page. */
export async function pullAll(
  client: HubClient,
  id: string,
  options: { since?: string; pageSize?: number } = {},
): Promise<{ head: string; commits: PulledCommit[] }> {
  const pageSize = options.pageSize ?? 1000;
  const commits: PulledCommit[] = [];
  let since = options.since;
  for (;;) {
    const page = await client.pull(id, { ...(since !== undefined ? { since } : {}), limit: pageSize });
    commits.push(...page.commits);
    const last = page.commits[page.commits.length - 1];
    if (!page.has_more || last === undefined) return { head: page.head, commits };
    since = last.hash;
  }
}

export interface PushProgress {
  /** Commits sent so far (stored or already present). */
  done: number;
  total: number;
}

/**
 * Pushes `commits` in requests of `batchSize` (each atomic on the hub, docs/api.md).
 * `onProgress` runs after each request. A failing request throws; the ones before it stay
 * stored, and `onBatch` has told the caller how far the hub got.
 */
export async function pushInBatches(
  client: HubClient,
  id: string,
  commits: readonly WireCommit[],
  options: {
    batchSize?: number;
    onProgress?: (p: PushProgress) => void;
    onBatch?: (result: { pushed: number; head: string; sent: number }) => void;
  } = {},
): Promise<{ pushed: number; head: string }> {
  const size = Math.max(1, options.batchSize ?? 1000);
  let pushed = 0;
  let head = "";
  for (let i = 0; i < commits.length; i += size) {
    const batch = commits.slice(i, i + size);
    const result = await client.push(id, batch);
    pushed += result.pushed;
    head = result.head;
    options.onBatch?.({ ...result, sent: i + batch.length });
    options.onProgress?.({ done: i + batch.length, total: commits.length });
  }
  return { pushed, head };
}
