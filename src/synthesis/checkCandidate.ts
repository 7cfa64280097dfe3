import { DEFAULT_LIMITS } from "../contract/limits.js";
import { checkAtInitial } from "../lang/check.js";
import { BudgetExceededError, FormulaError, ModelError } from "../lang/checkErrors.js";
import { labelText } from "../lang/graph.js";
import { compileModel, type Lts } from "../lang/Lts.js";
import { ParseError, parseModel, parseRule } from "../lang/parser.js";

/** Model-checking budget per synthesized rule: generous for real contracts, bounded for hostile answers. */
const CHECK_BUDGET = 10_000_000;

/**
 * Visits one synthesis request may spend over all its checks (both answers, and the model
 * again once `-modifies` is added), as a commit's checks share one: a provider answering
 * hundreds of rules each just under the per-rule budget would otherwise cost minutes.
 */
export const REQUEST_CHECK_BUDGET = DEFAULT_LIMITS.modelCheckBudget;

const SIGNING = new Set(["signed_by", "threshold", "any_signed", "all_signed", "oracle_attests"]);

export interface RuleVerdict {
  text: string;
  /** Why the rule was refused; absent when it holds. */
  error?: string;
}

/** What the checker found: plain data, so the check can run on a worker thread. */
export interface CandidateCheck {
  /** True when the model parses and compiles (then `modelError` is null). */
  compiled: boolean;
  modelError: string | null;
  rules: RuleVerdict[];
  /** The compiled model's warnings (unreachable states…) and its transitions that need no signature. */
  modelWarnings: string[];
  /** State visits the checks spent. */
  visits: number;
}

function message(err: unknown): string {
  if (err instanceof ParseError || err instanceof ModelError || err instanceof FormulaError) return err.message;
  if (err instanceof BudgetExceededError) return "model checking exceeded its budget";
  throw err;
}

/** A bare formula gets the RFC envelope, so every returned rule has the same shape. */
export function ruleEnvelope(text: string): string {
  const decl = parseRule(text);
  if (decl.envelope !== "bare") return text.trim();
  return `export default rule {\n  starting_at $PARENT\n  formula { ${text.trim()} }\n}`;
}

/** States of a counterexample path shown at each end; a path through a long chain names thousands. */
const PATH_ENDS = 6;

/** `a -> b -> … (n states) … -> y -> z`: the path's ends, so a message stays short however long the path. */
function pathText(names: string[]): string {
  if (names.length <= 2 * PATH_ENDS + 1) return names.join(" -> ");
  const skipped = names.length - 2 * PATH_ENDS;
  return [...names.slice(0, PATH_ENDS), `… (${skipped} more states) …`, ...names.slice(-PATH_ENDS)].join(" -> ");
}

/** Transitions a party takes without any signature (self-loops excepted): anyone allowed to write can take them. */
function unsignedTransitions(lts: Lts): string[] {
  return lts.transitions
    .filter((t) => t.from !== t.to && !t.label.some((p) => p.sign === "+" && SIGNING.has(p.name)))
    .map(
      (t) =>
        `transition ${lts.displayNames[t.from]} -> ${lts.displayNames[t.to]} [${labelText(t.label)}] needs no signature`,
    );
}

function checkRule(lts: Lts, text: string, meter: { visits: number }, budget: number): RuleVerdict {
  if (text.length > DEFAULT_LIMITS.ruleTextBytes) {
    return { text, error: `the rule text passes the hub's limit of ${DEFAULT_LIMITS.ruleTextBytes} bytes` };
  }
  try {
    const decl = parseRule(text);
    if (decl.startingAt !== null && decl.startingAt !== "$PARENT") {
      return { text, error: "a new contract's rules must start at $PARENT (no commit hash exists yet)" };
    }
    const left = budget - meter.visits;
    if (left <= 0)
      return { text, error: `not checked: the request's model-checking budget (${budget} visits) is spent` };
    const result = checkAtInitial(lts, decl.formula, { budget: Math.min(CHECK_BUDGET, left), meter });
    if (result.holds) return { text: ruleEnvelope(text) };
    const failing = result.failing!;
    const where = lts.displayNames[failing.state];
    const cx = failing.counterexample;
    const path =
      cx && cx.path.length > 1 ? `; counterexample path: ${pathText(cx.path.map((s) => lts.displayNames[s]!))}` : "";
    return { text, error: `does not hold at the initial state "${where}"${path}` };
  } catch (err) {
    return { text, error: message(err) };
  }
}

/**
 * Checks a synthesized model and rules the way contract creation will: the
 * model must parse and compile; each rule must parse, anchor at `$PARENT` and hold at the
 * initial states, all of them within `budget` visits (a rule past it is reported as not
 * checked). Never throws for a bad answer; reports every problem.
 */
export function checkCandidate(
  model: string | null,
  rules: readonly string[],
  budget: number = REQUEST_CHECK_BUDGET,
): CandidateCheck {
  const refused = (modelError: string): CandidateCheck => ({
    compiled: false,
    modelError,
    rules: rules.map((text) => ({ text })),
    modelWarnings: [],
    visits: 0,
  });
  if (model === null || model.trim() === "") return refused("the answer contains no model");
  // What contract creation would refuse is no candidate, and costs seconds to compile.
  if (model.length > DEFAULT_LIMITS.modelTextBytes) {
    return refused(`the model text passes the hub's limit of ${DEFAULT_LIMITS.modelTextBytes} bytes`);
  }
  let lts: Lts;
  try {
    lts = compileModel(parseModel(model));
  } catch (err) {
    return refused(message(err));
  }
  const meter = { visits: 0 };
  return {
    compiled: true,
    modelError: null,
    rules: rules.map((text) => checkRule(lts, text, meter, budget)),
    modelWarnings: [...lts.warnings.map((w) => `model: ${w.message}`), ...unsignedTransitions(lts)],
    visits: meter.visits,
  };
}
