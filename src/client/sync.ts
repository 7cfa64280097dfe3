/**
 * Push and pull of whole logs over HubClient, in pages: a pull that follows `has_more`, and a
 * push split into requests with a progress callback (the command line draws its bar from it).
 */
import type { PulledCommit, WireCommit } from "../contract/Commit.js";
import { isContractError } from "../contract/ContractError.js";
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
 * Pushes `commits` in requests of `batchSize` (each atomic on the hub, docs/api.md), with up
 * to `inFlight` requests (default 2) on the way at once: the hub verifies the signatures of
 * the next request while it stores the previous one. Requests are answered in any order, so
 * one refused as stale (CONFLICT) while an earlier one was still on its way is sent again once
 * that one is stored. `onBatch` and `onProgress` run in order after each stored request. A
 * failing request throws its error, after the requests already sent have been answered; the
 * ones before it stay stored, and `onBatch` has told the caller how far the hub got.
 */
export async function pushInBatches(
  client: HubClient,
  id: string,
  commits: readonly WireCommit[],
  options: {
    batchSize?: number;
    inFlight?: number;
    onProgress?: (p: PushProgress) => void;
    onBatch?: (result: { pushed: number; head: string; sent: number }) => void;
  } = {},
): Promise<{ pushed: number; head: string }> {
  const size = Math.max(1, options.batchSize ?? 1000);
  const window = Math.max(1, options.inFlight ?? 2);
  const sending: Promise<{ pushed: number; head: string }>[] = [];
  let pushed = 0;
  let head = "";
  try {
    for (let i = 0, k = 0; i < commits.length; i += size, k++) {
      if (k >= window) {
        // The oldest request in flight is answered (in order) before another is sent.
        report(k - window, await sending[k - window]!);
      }
      const request = pushOne(client, id, commits.slice(i, i + size), sending[k - 1]);
      // Awaited in order below; until then a refusal must not count as unhandled.
      request.catch(() => {});
      sending.push(request);
    }
    for (let k = Math.max(0, sending.length - window); k < sending.length; k++) {
      report(k, await sending[k]!);
    }
  } catch (err) {
    // No request is left running behind the caller's back.
    await Promise.allSettled(sending);
    throw err;
  }
  return { pushed, head };

  function report(k: number, result: { pushed: number; head: string }): void {
    pushed += result.pushed;
    head = result.head;
    const sent = Math.min(commits.length, (k + 1) * size);
    options.onBatch?.({ ...result, sent });
    options.onProgress?.({ done: sent, total: commits.length });
  }
}

/** One request of a windowed push; sent again once if it overtook `previous` (refused as stale). */
async function pushOne(
  client: HubClient,
  id: string,
  batch: WireCommit[],
  previous: Promise<unknown> | undefined,
): Promise<{ pushed: number; head: string }> {
  try {
    return await client.push(id, batch);
  } catch (err) {
    if (previous === undefined || !isContractError(err, "CONFLICT")) throw err;
    // If the earlier request failed, that failure is the one to report; this one is moot.
    await previous;
    return client.push(id, batch);
  }
}
