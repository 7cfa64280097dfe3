import { createHash } from "node:crypto";
import type { GoverningModel } from "../../contract/ContractState.js";
import { checkRulesHere, type RuleCheck } from "../../contract/checkRules.js";
import { compileGoverningModel, parseRuleRecord } from "../../contract/compileGoverningModel.js";
import { DEFAULT_LIMITS } from "../../contract/limits.js";

/** The model checks of one request, as sent to a worker: texts, not compiled objects. */
export interface CheckRulesPayload {
  model: string;
  rules: Array<{ text: string; path: string | null; anchorIndex: number; anchors: number[] }>;
  /** Visits left for these checks. */
  budget: number;
  /** The request's whole budget (named in a `check_budget` message). */
  total: number;
}

/** Compiled models by text hash: a worker sees the same few models again and again. */
const models = new Map<string, GoverningModel>();
const MODELS_KEPT = 8;

function compiled(text: string): GoverningModel {
  const key = createHash("sha256").update(text).digest("hex");
  let model = models.get(key);
  if (model === undefined) {
    // The caller compiled it already within its limits; here only the same text comes back.
    model = compileGoverningModel(text, { ...DEFAULT_LIMITS, modelStates: Number.MAX_SAFE_INTEGER });
    models.set(key, model);
    if (models.size > MODELS_KEPT) models.delete(models.keys().next().value!);
  } else {
    models.delete(key);
    models.set(key, model);
  }
  return model;
}

/** Runs in a worker: checks the rules under the shared budget; returns the visits spent or throws as checkRule does. */
export function checkRulesTask(payload: CheckRulesPayload): { visits: number } {
  const model = compiled(payload.model);
  const checks: RuleCheck[] = payload.rules.map((r) => ({
    rule: parseRuleRecord(r.text, r.path, r.anchorIndex),
    anchors: r.anchors,
  }));
  return { visits: checkRulesHere(model, checks, payload.budget, payload.total) };
}
