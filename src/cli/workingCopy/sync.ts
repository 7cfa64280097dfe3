/**
 * Moving a working copy to the hub's head (pull, and the refresh after push): fast-forward
 * only. The hub's new commits are validated locally (untrusted: hashes, links, signatures,
 * model and rules) before anything is written; a working copy whose unpushed commits the
 * hub does not have, while the hub has others, has diverged and is left untouched.
 */
import type { HubClient } from "../../client/HubClient.js";
import { pullAll } from "../../client/sync.js";
import type { PulledCommit } from "../../contract/Commit.js";
import { ContractError } from "../../contract/ContractError.js";
import type { ContractState } from "../../contract/ContractState.js";
import type { StoredCommit } from "../../contract/StoredCommit.js";
import { acceptPulled, stateOf } from "./localLog.js";
import type { WorkingCopy } from "./WorkingCopy.js";

/** The outcome of a fast-forward. */
export interface PullOutcome {
  /** Commits the working copy did not have before. */
  pulled: StoredCommit[];
  /** Local commits the hub turned out to hold already (now marked pushed). */
  matched: number;
  /** Local commits still not on the hub. */
  ahead: number;
  head: string;
  state: ContractState;
}

/** The hub's commits after the working copy's origin head. */
export async function fetchRemote(
  client: HubClient,
  wc: WorkingCopy,
): Promise<{ head: string; commits: PulledCommit[] }> {
  const origin = wc.origin();
  try {
    return await pullAll(client, wc.config.contract_id, { since: origin.head });
  } catch (err) {
    if (err instanceof ContractError && err.code === "NOT_FOUND" && err.details?.reason === "since_not_found") {
      throw new ContractError(
        "CONFLICT",
        `The hub does not hold this working copy's base commit ${origin.head}: it is not a copy of that hub's contract`,
        { reason: "unknown_base", base: origin.head },
      );
    }
    throw err;
  }
}

/**
 * Fast-forwards the working copy over `remote` (the hub's commits after the origin head).
 * Local unpushed commits the hub already holds in the same order are taken in their hub
 * form (hub receipt time); anything else on both sides is a divergence (CONFLICT, reason
 * `diverged`, with both lists), and nothing is written.
 */
export async function fastForward(wc: WorkingCopy, remote: readonly PulledCommit[]): Promise<PullOutcome> {
  const id = wc.config.contract_id;
  const local = wc.readCommits();
  const origin = wc.origin();
  const unpushed = local.slice(origin.length);
  let k = 0;
  while (k < unpushed.length && k < remote.length && unpushed[k]!.hash === remote[k]!.hash) k++;
  if (k < unpushed.length && k < remote.length) {
    throw new ContractError(
      "CONFLICT",
      `Cannot fast-forward: ${unpushed.length - k} local commit(s) and ${remote.length - k} hub commit(s) both follow ${
        k === 0 ? origin.head : unpushed[k - 1]!.hash
      }`,
      {
        reason: "diverged",
        base: k === 0 ? origin.head : unpushed[k - 1]!.hash,
        local_only: unpushed.slice(k).map((c) => c.hash),
        remote_only: remote.slice(k).map((c) => c.hash),
        hint:
          "Your local commits were not pushed. Drop them with `contract-hub reset --hard origin` (it also pulls), " +
          "then commit again on the new head.",
      },
    );
  }
  const base = local.slice(0, origin.length);
  if (remote.length === 0) {
    return { pulled: [], matched: 0, ahead: unpushed.length, head: origin.head, state: await stateOf(id, local) };
  }
  const { log } = await acceptPulled(id, base, remote);
  const tail = unpushed.slice(k);
  const all = [...log, ...tail];
  // Unpushed commits after the matched prefix were validated on the same parents when committed.
  const state = await stateOf(id, all);
  wc.writeCommits(origin.length, all.slice(origin.length));
  const last = log[log.length - 1]!;
  wc.setOrigin({ head: last.hash, length: log.length });
  return {
    pulled: log.slice(origin.length + k),
    matched: k,
    ahead: tail.length,
    head: state.head,
    state,
  };
}
