import { isBigCommitData, prepareCommitHash } from "../contract/commitHashInSlices.js";
import type { StoredCommit } from "../contract/StoredCommit.js";
import { yieldSometimes } from "./heavy/TimeSlice.js";

/**
 * The stored commits of `contractId`, each big one hashed in slices before it is handed on,
 * so that the replay's shape check, which recomputes every hash, finds it hashed
 * (commitHashInSlices.ts): a 15 MB value held the event loop 115 ms in one piece on every
 * cold load. `tick` is the request's charged one when a request asked for the load.
 */
export async function* prehashedCommits(
  contractId: string,
  commits: AsyncIterable<StoredCommit>,
  tick: () => Promise<void> | void = yieldSometimes,
): AsyncIterable<StoredCommit> {
  for await (const c of commits) {
    if (isBigCommitData(c.data)) await prepareCommitHash(contractId, c.parent, c.data, tick);
    yield c;
  }
}
