import type { GoverningModel } from "./ContractState.js";
import { checkRule } from "./checkRule.js";
import type { RuleCheck, RuleChecker } from "./RuleChecker.js";

export type { RuleCheck, RuleChecker } from "./RuleChecker.js";

/**
 * Checks `checks` in order on this thread within `budget` visits; returns the visits spent.
 * `total` is the request's whole budget when part of it was spent elsewhere (for the message).
 */
export function checkRulesHere(
  model: GoverningModel,
  checks: readonly RuleCheck[],
  budget: number,
  total = budget,
): number {
  const meter = { visits: 0 };
  for (const { rule, anchors } of checks) checkRule(model, rule, anchors, budget - meter.visits, meter, total);
  return meter.visits;
}

/** The default checker: on this thread. */
export const checkRulesInline: RuleChecker = async (model, checks, budget) => {
  checkRulesHere(model, checks, budget);
};
