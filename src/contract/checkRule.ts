/**
 * Rules against models (LANGUAGE.md §4): a rule holds when its formula holds at every anchor
 * state in the governing model. Results are cached per (model, rule, anchors), so ordinary
 * commits never pay for model checking.
 */
import { createHash } from "node:crypto";
import type { RuleDecl } from "../lang/ast.js";
import { checkAt } from "../lang/check.js";
import { BudgetExceededError, FormulaError, ModelError } from "../lang/checkErrors.js";
import type { Counterexample } from "../lang/counterexample.js";
import type { Lts } from "../lang/Lts.js";
import { printFormula } from "../lang/printer.js";
import { ContractError } from "./ContractError.js";
import type { GoverningModel, RuleRecord } from "./ContractState.js";
import { labelText } from "./step.js";

const CACHE_LIMIT = 10_000;
/** Rule truth by (model text hash, formula, anchors); Map order gives LRU eviction. */
const truthCache = new Map<string, true>();
const modelHashes = new WeakMap<Lts, string>();

function modelHash(model: GoverningModel): string {
  let h = modelHashes.get(model.lts);
  if (h === undefined) {
    h = createHash("sha256").update(model.text).digest("hex");
    modelHashes.set(model.lts, h);
  }
  return h;
}

/** A name for a rule in messages: its path, or its formula for a genesis rule. */
export function ruleName(rule: Pick<RuleRecord, "path" | "decl">): string {
  return (
    rule.path ??
    (rule.decl.name !== null ? `rule ${rule.decl.name}` : `genesis rule "${printFormula(rule.decl.formula)}"`)
  );
}

/** A counterexample with state and transition names instead of indices. */
function describeCounterexample(lts: Lts, c: Counterexample): Record<string, unknown> {
  const out: Record<string, unknown> = {
    kind: c.kind,
    state: lts.displayNames[c.state],
    path: c.path.map((s) => lts.displayNames[s]),
    transitions: c.transitions.map((t) => labelText(lts.transitions[t]!.label)),
  };
  if (c.reachable !== undefined) out.reachable = c.reachable.map((s) => lts.displayNames[s]);
  return out;
}

/**
 * Throws VALIDATION_FAILED unless `rule` holds at `anchors` (state indices) in `model`:
 * `rule_violated` with the failing anchor and a counterexample, `rule_invalid` for a formula
 * the checker refuses (non-monotone, unknown state), `check_budget` past the visit budget.
 */
export function checkRule(model: GoverningModel, rule: RuleRecord, anchors: readonly number[], budget: number): void {
  const key = `${modelHash(model)}\u0000${printFormula(rule.formula)}\u0000${anchors.join(",")}`;
  if (truthCache.has(key)) {
    truthCache.delete(key);
    truthCache.set(key, true);
    return;
  }
  const name = ruleName(rule);
  let result: ReturnType<typeof checkAt>;
  try {
    result = checkAt(model.lts, rule.formula, anchors, { budget });
  } catch (err) {
    if (err instanceof BudgetExceededError) {
      throw new ContractError(
        "VALIDATION_FAILED",
        `Cannot check ${name}: model checking exceeded its budget of ${budget} state visits`,
        { reason: "check_budget", rule: name, budget },
      );
    }
    if (err instanceof FormulaError || err instanceof ModelError) {
      throw new ContractError("VALIDATION_FAILED", `Cannot check ${name}: ${err.message}`, {
        reason: "rule_invalid",
        rule: name,
      });
    }
    throw err;
  }
  if (!result.holds) {
    const failing = result.failing!;
    const details: Record<string, unknown> = {
      reason: "rule_violated",
      rule: name,
      formula: printFormula(rule.formula),
      anchor_state: model.lts.displayNames[failing.state],
    };
    if (failing.counterexample) details.counterexample = describeCounterexample(model.lts, failing.counterexample);
    throw new ContractError(
      "VALIDATION_FAILED",
      `Rule ${name} does not hold at state "${details.anchor_state}" of the model`,
      details,
    );
  }
  truthCache.set(key, true);
  if (truthCache.size > CACHE_LIMIT) truthCache.delete(truthCache.keys().next().value!);
}

/** The anchor of a parsed rule: `$PARENT`/none, or a commit hash. */
export function ruleAnchor(decl: RuleDecl): { parent: true } | { hash: string } {
  return decl.startingAt === null || decl.startingAt === "$PARENT" ? { parent: true } : { hash: decl.startingAt };
}
