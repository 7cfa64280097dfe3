/**
 * The hub's load-path checks (docs/reliability.md, tamper): a contract whose stored log
 * fails them is CORRUPTED (500, docs/api.md) for every route, naming the first damaged
 * commit, and is never served as valid; other contracts are unaffected. The trusted replay
 * itself already recomputes every commit hash (JCS + sha256) and checks every index and
 * parent link; signatures are not verified again on load (that is `verify`'s job).
 */
import { ContractError } from "../contract/ContractError.js";
import type { ContractState } from "../contract/ContractState.js";
import type { StoredCommit } from "../contract/StoredCommit.js";
import type { ContractRecord } from "../store/Store.js";

/** The stored commits from index `from`; a row that cannot be decoded (its JSON damaged) is CORRUPTED at its index. */
export async function* decodedCommits(commits: AsyncIterable<StoredCommit>, from = 0): AsyncIterable<StoredCommit> {
  let index = from;
  try {
    for await (const c of commits) {
      yield c;
      index++;
    }
  } catch (err) {
    // Stores decode rows one at a time, so the failing row is the one after the last yielded.
    if (!(err instanceof SyntaxError)) throw err;
    throw new ContractError(
      "CORRUPTED",
      `Contract log is damaged at commit ${index}: its stored row cannot be decoded`,
      { reason: "corrupted", index },
      { cause: err },
    );
  }
}

/**
 * A deleted tip leaves a shorter log that replays cleanly: only the contract row's head and
 * length can tell. Returns `state` when its head is the stored head; otherwise throws
 * CORRUPTED naming the first commit the row promises that the log lacks.
 */
export function replayReachesHead(record: ContractRecord, state: ContractState): ContractState {
  if (state.length === record.length && state.head === record.head) return state;
  const index = Math.min(state.length, record.length - 1);
  const details: Record<string, unknown> = { reason: "corrupted", index };
  if (index === record.length - 1) details.hash = record.head;
  const why =
    state.length < record.length
      ? `the log ends after ${state.length} commits, the contract row says ${record.length}`
      : `the log ends at ${state.head}, the contract row says ${record.head}`;
  throw new ContractError("CORRUPTED", `Contract log is damaged at commit ${index}: ${why}`, details);
}
