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
 * to `inFlight` requests (default 2) on their way at once: the hub verifies the signatures of
 * the next request while it stores the previous one. Requests travel on separate connections,
 * so one may reach the hub before its predecessor and be refused as stale (CONFLICT): it is
 * sent again once the predecessor is answered, and before any further request goes out every
 * request already sent is answered, so one overtaking does not start another. `onBatch` and
 * `onProgress` run in order after each stored request. A failing request throws its error,
 * after the requests already sent have been answered; the ones before it stay stored, and
 * `onBatch` has told the caller how far the hub got.
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
  let answered = 0;
  let overtaken = false;
  // Reports the requests before `upTo`, in order, as they are answered.
  const answerUpTo = async (upTo: number) => {
    for (; answered < upTo; answered++) {
      const result = await sending[answered]!;
      pushed += result.pushed;
      head = result.head;
      const sent = Math.min(commits.length, (answered + 1) * size);
      options.onBatch?.({ ...result, sent });
      options.onProgress?.({ done: sent, total: commits.length });
    }
  };
  try {
    for (let i = 0, k = 0; i < commits.length; i += size, k++) {
      await answerUpTo(k - window + 1);
      if (overtaken) {
        await answerUpTo(k);
        overtaken = false;
      }
      const request = pushOne(client, id, commits.slice(i, i + size), sending[k - 1], () => {
        overtaken = true;
      });
      // Awaited in order; until then a refusal must not count as unhandled.
      request.catch(() => {});
      sending.push(request);
    }
    await answerUpTo(sending.length);
  } catch (err) {
    // No request is left running behind the caller's back.
    await Promise.allSettled(sending);
    throw err;
  }
  return { pushed, head };
}

/** One request of a windowed push; sent again once if it overtook `previous` (refused as stale). */
async function pushOne(
  client: HubClient,
  id: string,
  batch: WireCommit[],
  previous: Promise<unknown> | undefined,
  onOvertaken: () => void,
): Promise<{ pushed: number; head: string }> {
  try {
    return await client.push(id, batch);
  } catch (err) {
    if (previous === undefined || !isContractError(err, "CONFLICT")) throw err;
    onOvertaken();
    // If the earlier request failed, that failure is the one to report; this one is moot.
    await previous;
    return client.push(id, batch);
  }
}
