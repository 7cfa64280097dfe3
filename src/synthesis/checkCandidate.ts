import { DEFAULT_LIMITS } from "../contract/limits.js";
import { checkAtInitial } from "../lang/check.js";
import { BudgetExceededError, FormulaError, ModelError } from "../lang/checkErrors.js";
import { compileModel, type Lts } from "../lang/Lts.js";
import { ParseError, parseModel, parseRule } from "../lang/parser.js";

/** Model-checking budget per synthesized rule: generous for real contracts, bounded for hostile answers. */
const CHECK_BUDGET = 10_000_000;

export interface RuleVerdict {
  text: string;
  /** Why the rule was refused; absent when it holds. */
  error?: string;
}

export interface CandidateCheck {
  /** The compiled model, when it parses and compiles. */
  lts: Lts | null;
  modelError: string | null;
  rules: RuleVerdict[];
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

function checkRule(lts: Lts, text: string): RuleVerdict {
  if (text.length > DEFAULT_LIMITS.ruleTextBytes) {
    return { text, error: `the rule text passes the hub's limit of ${DEFAULT_LIMITS.ruleTextBytes} bytes` };
  }
  try {
    const decl = parseRule(text);
    if (decl.startingAt !== null && decl.startingAt !== "$PARENT") {
      return { text, error: "a new contract's rules must start at $PARENT (no commit hash exists yet)" };
    }
    const result = checkAtInitial(lts, decl.formula, { budget: CHECK_BUDGET });
    if (result.holds) return { text: ruleEnvelope(text) };
    const failing = result.failing!;
    const where = lts.displayNames[failing.state];
    const cx = failing.counterexample;
    const path =
      cx && cx.path.length > 1 ? `; counterexample path: ${cx.path.map((s) => lts.displayNames[s]).join(" -> ")}` : "";
    return { text, error: `does not hold at the initial state "${where}"${path}` };
  } catch (err) {
    return { text, error: message(err) };
  }
}

/**
 * Checks a synthesized model and rules the way contract creation will: the
 * model must parse and compile; each rule must parse, anchor at `$PARENT` and hold at the
 * initial states. Never throws for a bad answer; reports every problem.
 */
export function checkCandidate(model: string | null, rules: readonly string[]): CandidateCheck {
  if (model === null || model.trim() === "") {
    return { lts: null, modelError: "the answer contains no model", rules: rules.map((text) => ({ text })) };
  }
  // What contract creation would refuse is no candidate, and costs seconds to compile.
  if (model.length > DEFAULT_LIMITS.modelTextBytes) {
    return {
      lts: null,
      modelError: `the model text passes the hub's limit of ${DEFAULT_LIMITS.modelTextBytes} bytes`,
      rules: rules.map((text) => ({ text })),
    };
  }
  let lts: Lts;
  try {
    lts = compileModel(parseModel(model));
  } catch (err) {
    return { lts: null, modelError: message(err), rules: rules.map((text) => ({ text })) };
  }
  return { lts, modelError: null, rules: rules.map((text) => checkRule(lts, text)) };
}
