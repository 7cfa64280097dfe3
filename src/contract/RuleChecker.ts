import type { GoverningModel, RuleRecord } from "./ContractState.js";

/** One rule to check at its anchor states. */
export interface RuleCheck {
  rule: RuleRecord;
  anchors: readonly number[];
}

/**
 * Checks every rule a commit adds or re-anchors, under one budget of state visits shared by
 * all of them: a request pays for what it asks, not one budget per rule. Throws the first
 * failure as checkRule does; past the shared budget, VALIDATION_FAILED `check_budget`.
 * The default runs on the calling thread (checkRules.ts); the hub passes one that runs the
 * checks off its event loop, on its worker pool.
 */
export type RuleChecker = (model: GoverningModel, checks: readonly RuleCheck[], budget: number) => Promise<void>;
