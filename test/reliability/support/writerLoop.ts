/**
 * One writer of the crash and soak harnesses: pushes signed chains of 1–3 commits to its own
 * contract or a shared one, over REST push, a single-commit POST or JSON-RPC push, until
 * told to stop or the hub goes away. Every attempt goes into the history with its outcome.
 */
import type { HubClient } from "../../../src/client/HubClient.js";
import type { WireCommit } from "../../../src/contract/Commit.js";
import { isContractError } from "../../../src/contract/ContractError.js";
import type { Party } from "./party.js";
import type { Rng } from "./seeded.js";
import type { Attempt } from "./setChecker.js";

export interface WriterRun {
  party: Party;
  client: HubClient;
  rng: Rng;
  /** The writer's own contract; `shared` is written by every writer. */
  own: string;
  shared: string;
  /** Makes commit payloads distinct across rounds. */
  tag: string;
  history: Attempt[];
  /** Errors that are neither a refusal the protocol allows nor a lost connection. */
  violations: string[];
  shouldStop: () => boolean;
}

/** Runs until `shouldStop()` or the first lost connection; returns the number of acknowledged attempts. */
export async function writerLoop(w: WriterRun): Promise<number> {
  const heads = new Map<string, string>();
  let acks = 0;
  for (let op = 0; !w.shouldStop(); op++) {
    const id = w.rng.next() < 0.6 ? w.own : w.shared;
    let head = heads.get(id);
    if (head === undefined) {
      try {
        head = (await w.client.getState(id)).head;
      } catch (err) {
        if (isContractError(err, "UNAVAILABLE") || !isContractError(err)) return acks;
        w.violations.push(`getState ${id}: ${(err as Error).message}`);
        return acks;
      }
    }
    const commits = w.party.chain(id, head, w.rng.int(1, 3), `${w.tag}-o${op}`);
    const attempt: Attempt = { contract: id, hashes: commits.map((c) => c.hash), outcome: "info" };
    w.history.push(attempt);
    try {
      await send(w, id, commits);
      attempt.outcome = "ok";
      acks++;
      heads.set(id, commits[commits.length - 1]!.hash);
    } catch (err) {
      if (isContractError(err, "CONFLICT")) {
        // A definite refusal: another writer moved the head first.
        attempt.outcome = "fail";
        heads.delete(id);
        continue;
      }
      // A lost connection (the hub was killed) leaves the attempt indeterminate.
      if (isContractError(err, "UNAVAILABLE") || !isContractError(err)) return acks;
      attempt.outcome = "fail";
      w.violations.push(`${id}: ${err.code} ${err.message}`);
      return acks;
    }
  }
  return acks;
}

async function send(w: WriterRun, id: string, commits: WireCommit[]): Promise<void> {
  const via = w.rng.next();
  if (commits.length === 1 && via < 0.4) await w.client.submitCommit(id, { commit: commits[0]! });
  else if (via < 0.7) await w.client.push(id, commits);
  else await w.client.rpc("push", { contract_id: id, commits });
}
