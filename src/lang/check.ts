/**
 * The checker's entry point for the hub (docs/language.md): a formula holds at a set of anchor
 * states when it holds at every one of them.
 */
import type { Formula } from "./ast.js";
import { ModelError } from "./checkErrors.js";
import { type Counterexample, explainFailure } from "./counterexample.js";
import { DEFAULT_BUDGET, evaluate, type StateSet } from "./evaluate.js";
import { findStates, type Lts } from "./Lts.js";

export interface CheckOptions {
  /** Maximum state visits for the check (the whole counterexample of a failing check gets its own budget of the same size). */
  budget?: number;
  /** Set false to skip building a counterexample for a failing check. */
  counterexample?: boolean;
  /** Receives the visits of the evaluation (see EvalOptions.meter). */
  meter?: { visits: number };
}

export interface CheckResult {
  holds: boolean;
  /** Every state where the formula holds. */
  satisfying: StateSet;
  /** The anchors as state indices, names expanded. */
  anchors: number[];
  /** The first anchor (in the order given) where the formula fails. */
  failing?: { state: number; counterexample?: Counterexample };
}

/**
 * Checks `formula` at `anchorStates` (state indices, or names: `part:name`, or a plain name
 * meaning that name in every part). Throws ModelError (UNKNOWN_STATE) for a name that matches
 * no state, MonotonicityError / FormulaError for a rejected formula, BudgetExceededError.
 */
export function checkAt(
  lts: Lts,
  formula: Formula,
  anchorStates: Iterable<number | string>,
  opts: CheckOptions = {},
): CheckResult {
  const anchors = resolveAnchors(lts, anchorStates);
  const budget = opts.budget ?? DEFAULT_BUDGET;
  const satisfying = evaluate(lts, formula, opts.meter ? { budget, meter: opts.meter } : { budget });
  const failed = anchors.find((s) => !satisfying[s]);
  if (failed === undefined) return { holds: true, satisfying, anchors };
  const counterexample = opts.counterexample === false ? undefined : explainFailure(lts, formula, failed, { budget });
  return {
    holds: false,
    satisfying,
    anchors,
    failing: counterexample ? { state: failed, counterexample } : { state: failed },
  };
}

/** Checks at the initial state of every part (used for genesis rules and `model check`). */
export function checkAtInitial(lts: Lts, formula: Formula, opts: CheckOptions = {}): CheckResult {
  return checkAt(lts, formula, lts.initialStates, opts);
}

/** Anchor references as state indices; throws ModelError(UNKNOWN_STATE) for an unknown one. */
export function resolveAnchors(lts: Lts, anchorStates: Iterable<number | string>): number[] {
  const anchors: number[] = [];
  for (const ref of anchorStates) {
    if (typeof ref === "number") {
      if (!Number.isInteger(ref) || ref < 0 || ref >= lts.stateCount) {
        throw new ModelError(`state index ${ref} is not a state of model ${lts.name}`, "UNKNOWN_STATE");
      }
      anchors.push(ref);
      continue;
    }
    const states = findStates(lts, ref);
    if (states.length === 0) throw new ModelError(`model ${lts.name} has no state ${ref}`, "UNKNOWN_STATE");
    anchors.push(...states);
  }
  return anchors;
}
