/**
 * What a working copy knows about a SEND it is asked to receive. Whether a SEND exists and
 * who has received it spans contracts, so the engine run locally cannot decide a RECV the way
 * the hub does; but the local log can prove some RECVs wrong, and one such commit would sink
 * every push of the working copy (a push is atomic). These are refused here with the hub's
 * codes and reasons, before anything is written.
 */
import type { RecvValue, SendValue } from "../../contract/Commit.js";
import { ContractError } from "../../contract/ContractError.js";
import type { StoredCommit } from "../../contract/StoredCommit.js";
import { shortHash } from "../hashPrefix.js";

/**
 * Refuses a RECV of `send` in contract `id` when `log` (the working copy's whole log; the
 * first `pushed` commits are on the hub) already holds a RECV of it, or holds the commit
 * `send` itself and that commit is not a SEND to `id`.
 */
export function checkRecvLocally(id: string, log: readonly StoredCommit[], pushed: number, send: string): void {
  for (const c of log) {
    for (const op of c.data) {
      if (op.method === "recv" && (op.value as RecvValue).send_commit_id === send) {
        const where = `commit ${c.index} of this working copy${c.index >= pushed ? ", not pushed" : ""}`;
        throw alreadyReceived(send, c.hash, where);
      }
    }
    if (c.hash !== send) continue;
    const op = c.data.find((o) => o.method === "send");
    if (op === undefined) {
      throw new ContractError(
        "VALIDATION_FAILED",
        `RECV rejected: commit ${c.index} of this working copy (${shortHash(send)}) is not a SEND`,
        { reason: "send_not_found", rpc_code: -32030, send_commit_id: send },
      );
    }
    const to = (op.value as SendValue).to_contract;
    if (to !== id) {
      throw new ContractError(
        "VALIDATION_FAILED",
        `RECV rejected: contract ${id} is not the recipient of SEND ${shortHash(send)} (commit ${c.index} of this working copy), which was sent to ${to}`,
        { reason: "wrong_recipient", rpc_code: -32031, send_commit_id: send, to_contract: to },
      );
    }
  }
}

/** The refusal of a RECV of a SEND that was received already (the code the hub gives it). */
export function alreadyReceived(send: string, by: string, where: string): ContractError {
  return new ContractError(
    "VALIDATION_FAILED",
    `RECV rejected: SEND ${shortHash(send)} was already received by ${shortHash(by)} (${where})`,
    { reason: "already_received", rpc_code: -32032, send_commit_id: send, received_by: by },
  );
}
