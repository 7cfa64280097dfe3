/**
 * A commit refused locally only because another party has not signed it cannot be made on
 * this machine at all: the refusal says so and points to `propose`, which lets the other
 * parties add their signatures from their own machines.
 */
import type { WireCommit } from "../../contract/Commit.js";
import { ContractError, isContractError } from "../../contract/ContractError.js";
import type { ContractState } from "../../contract/ContractState.js";
import { decideProposal } from "../../contract/engine.js";
import type { StoredCommit } from "../../contract/StoredCommit.js";
import { localStamp } from "./localLog.js";

/** `err` with a hint to propose when the commit is valid except for co-signers' signatures; else `err` unchanged. */
export async function withProposeHint(
  err: unknown,
  state: ContractState,
  log: readonly StoredCommit[],
  commit: WireCommit,
): Promise<unknown> {
  if (!isContractError(err, "VALIDATION_FAILED") || err.details?.reason !== "no_transition") return err;
  const byHash = new Map(log.map((c) => [c.hash, c.index]));
  const decision = await decideProposal(state, commit, {
    timestamp: localStamp(state),
    readLog: () => log,
    commitIndex: (hash) => byHash.get(hash) ?? null,
  }).catch(() => null);
  if (decision === null || decision.complete) return err;
  const who = decision.missing.map((m) => `${m.predicate} (${m.needed} of ${m.signers.join(", ")})`).join("; ");
  return new ContractError(
    "VALIDATION_FAILED",
    `${err.message}: only a co-signer's signature is missing: ${who}`,
    {
      ...err.details,
      missing: decision.missing,
      hint:
        "The other party signs on their own machine: run the same command as `contract-hub propose …` " +
        "(it uploads the commit with your signature), then they run `contract-hub sign <hash>`.",
    },
    { cause: err },
  );
}
