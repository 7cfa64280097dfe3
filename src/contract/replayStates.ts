import type { Lts } from "../lang/Lts.js";
import { ContractError, isContractError } from "./ContractError.js";
import { dataWrites } from "./dataWrites.js";
import type { WasmRunner } from "./EngineContext.js";
import { actionLabelsOf, type StoredCommit } from "./StoredCommit.js";
import { commitFacts, incompleteExplanation, step, unfinishedError } from "./step.js";

/** Where a replay of the log through a model ended. */
export interface ReplayProgress {
  /** States after the last replayed commit. */
  states: number[];
  /** Data state after the last replayed commit. */
  data: Map<string, unknown>;
  /** States right after each wanted index. */
  statesAt: Map<number, number[]>;
}

/**
 * Replays stored commits 0..lastIndex through `lts` from its initial states (docs/language.md):
 * genesis is not checked; every later commit must take an enabled transition, with its stored
 * signers, attestations and receipt time. Throws VALIDATION_FAILED `model_replay` naming the
 * first commit the model cannot take, with the candidates that were tried, or UNAVAILABLE
 * `predicate_unfinished` when a custom predicate it ran did not finish (step.ts).
 */
export async function replayStates(
  lts: Lts,
  contractId: string,
  log: AsyncIterable<StoredCommit> | Iterable<StoredCommit>,
  lastIndex: number,
  wanted: ReadonlySet<number>,
  wasm: WasmRunner | null,
  tick?: () => Promise<void> | void,
): Promise<ReplayProgress> {
  const data = new Map<string, unknown>();
  const statesAt = new Map<number, number[]>();
  let states = [...lts.initialStates].sort((a, b) => a - b);
  for await (const c of log) {
    if (c.index > lastIndex) break;
    await tick?.();
    if (c.index > 0) {
      const facts = commitFacts(
        {
          contractId,
          hash: c.hash,
          parent: c.parent,
          input: {
            data,
            ops: c.data,
            signers: new Set(c.signers),
            attestations: c.attestations ?? [],
            timestamp: c.timestamp,
          },
          wasm,
          ...(tick !== undefined ? { tick } : {}),
        },
        actionLabelsOf(c.data),
      );
      const result = await step(lts, states, facts).catch((err: unknown) => {
        // The budget too: which predicates run depends on the answers of those before them.
        const budget = facts.unfinished !== undefined && isContractError(err, "VALIDATION_FAILED");
        throw budget ? unfinishedError(facts.unfinished!) : err;
      });
      if (result.next.length === 0) {
        // The history was accepted: a custom predicate the host did not finish says nothing of it.
        if (result.unfinished !== undefined) throw unfinishedError(result.unfinished);
        throw new ContractError(
          "VALIDATION_FAILED",
          `The new model cannot replay the contract's history: commit ${c.index} (${c.hash}) takes no transition from ${
            states.map((s) => `"${lts.displayNames[s]}"`).join(", ") || "no state"
          }`,
          {
            reason: "model_replay",
            index: c.index,
            hash: c.hash,
            current_states: states.map((s) => lts.displayNames[s]),
            candidates: result.candidates,
            ...incompleteExplanation(result),
          },
        );
      }
      states = result.next;
    }
    for (const [path, value] of dataWrites(c.data)) data.set(path, value);
    if (wanted.has(c.index)) statesAt.set(c.index, states);
  }
  return { states, data, statesAt };
}
