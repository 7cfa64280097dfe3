/**
 * Rules against models (docs/language.md): a rule holds when its formula holds at every anchor
 * state in the governing model. Results are cached per (model, rule, anchors), so ordinary
 * commits never pay for model checking.
 */
import { createHash } from "node:crypto";
import type { RuleDecl } from "../lang/ast.js";
import { checkAt } from "../lang/check.js";
import { BudgetExceededError, FormulaError, ModelError } from "../lang/checkErrors.js";
import { checkFormula } from "../lang/checkFormula.js";
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

/**
 * Throws VALIDATION_FAILED (`rule_invalid`) for a rule whose formula no model could check
 * (non-monotone, relative path): refused when added, even to a contract without a model,
 * which would otherwise refuse every model it is later given.
 */
export function checkRuleFormula(rule: RuleRecord): void {
  try {
    checkFormula(rule.formula);
  } catch (err) {
    if (!(err instanceof FormulaError)) throw err;
    const name = ruleName(rule);
    throw new ContractError("VALIDATION_FAILED", `Cannot add ${name}: ${err.message}`, {
      reason: "rule_invalid",
      rule: name,
    });
  }
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

/** The truth-cache key of a check: the same model, formula and anchors always give the same answer. */
export function truthKey(model: GoverningModel, rule: RuleRecord, anchors: readonly number[]): string {
  return `${modelHash(model)}\u0000${printFormula(rule.formula)}\u0000${anchors.join(",")}`;
}

/** True when the check of `key` is known to hold (and marks it recently used). */
export function knownTrue(key: string): boolean {
  if (!truthCache.has(key)) return false;
  truthCache.delete(key);
  truthCache.set(key, true);
  return true;
}

/** Remembers that the check of `key` holds. */
export function rememberTrue(key: string): void {
  truthCache.set(key, true);
  if (truthCache.size > CACHE_LIMIT) truthCache.delete(truthCache.keys().next().value!);
}

/**
 * Throws VALIDATION_FAILED unless `rule` holds at `anchors` (state indices) in `model`:
 * `rule_violated` with the failing anchor and a counterexample, `rule_invalid` for a formula
 * the checker refuses (non-monotone, unknown state), `check_budget` past the visit budget.
 * `meter` receives the visits spent; `total` is the budget named in the message when `budget`
 * is what is left of a budget shared by several checks.
 */
export function checkRule(
  model: GoverningModel,
  rule: RuleRecord,
  anchors: readonly number[],
  budget: number,
  meter?: { visits: number },
  total = budget,
): void {
  const key = truthKey(model, rule, anchors);
  if (knownTrue(key)) return;
  const name = ruleName(rule);
  let result: ReturnType<typeof checkAt>;
  try {
    result = checkAt(model.lts, rule.formula, anchors, meter ? { budget, meter } : { budget });
  } catch (err) {
    if (err instanceof BudgetExceededError) {
      const shared = total !== budget;
      throw new ContractError(
        "VALIDATION_FAILED",
        shared
          ? `Cannot check ${name}: the request's model checks exceeded their budget of ${total} state visits`
          : `Cannot check ${name}: model checking exceeded its budget of ${budget} state visits`,
        { reason: "check_budget", rule: name, budget: total },
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
  rememberTrue(key);
}

/**
 * checkRuleFormula for a rule given at creation, which also may not name an anchor commit:
 * none comes before the genesis (VALIDATION_FAILED `unknown_anchor`), and quietly anchoring
 * it at the initial state would check it somewhere other than where its author said.
 */
export function checkGenesisRule(rule: RuleRecord): void {
  checkRuleFormula(rule);
  const anchor = ruleAnchor(rule.decl);
  if ("hash" in anchor) {
    throw new ContractError(
      "VALIDATION_FAILED",
      `Cannot add ${ruleName(rule)}: its anchor "${anchor.hash}" is not an earlier commit of this contract (a rule given at creation is anchored at the initial state)`,
      { reason: "unknown_anchor", anchor: anchor.hash },
    );
  }
}

/** The anchor of a parsed rule: `$PARENT`/none, or a commit hash. */
export function ruleAnchor(decl: RuleDecl): { parent: true } | { hash: string } {
  return decl.startingAt === null || decl.startingAt === "$PARENT" ? { parent: true } : { hash: decl.startingAt };
}
