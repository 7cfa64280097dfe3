import type { RuleDecl } from "../lang/ast.js";
import { ModelError } from "../lang/checkErrors.js";
import { compileModelSteps } from "../lang/Lts.js";
import { ParseError } from "../lang/parser.js";
import { runSteps, runStepsAsync, type Steps } from "../lang/Steps.js";
import { ContractError } from "./ContractError.js";
import type { GoverningModel, RuleRecord } from "./ContractState.js";
import { DEFAULT_LIMITS, type Limits } from "./limits.js";
import { parseModelMemoSteps } from "./modelParseMemo.js";
import { parseRuleMemo } from "./ruleParseMemo.js";

/** Parses and compiles a contract's model text; errors are VALIDATION_FAILED (`model_invalid`) or 413 past the state limit. */
export function compileGoverningModel(text: string, limits: Limits = DEFAULT_LIMITS): GoverningModel {
  return runSteps(compileGoverningModelSteps(text, limits));
}

/**
 * `compileGoverningModel` awaiting `tick` between pieces of the work: a model of 10^5
 * transitions takes most of a second to compile, which a server must not spend in one go.
 */
export function compileGoverningModelSliced(
  text: string,
  limits: Limits,
  tick: () => Promise<void> | void,
): Promise<GoverningModel> {
  return runStepsAsync(compileGoverningModelSteps(text, limits), tick);
}

function* compileGoverningModelSteps(text: string, limits: Limits): Steps<GoverningModel> {
  let lts: GoverningModel["lts"];
  try {
    lts = yield* compileModelSteps(yield* parseModelMemoSteps(text));
  } catch (err) {
    if (err instanceof ParseError || err instanceof ModelError) {
      const where = err instanceof ParseError ? { line: err.line, column: err.column } : {};
      throw new ContractError("VALIDATION_FAILED", `Cannot use model: ${err.message}`, {
        reason: "model_invalid",
        ...where,
      });
    }
    throw err;
  }
  if (lts.stateCount > limits.modelStates) {
    throw new ContractError(
      "PAYLOAD_TOO_LARGE",
      `Cannot use model: ${lts.stateCount} states exceed the limit of ${limits.modelStates}`,
      { reason: "limit_exceeded", limit: "modelStates", max: limits.modelStates, actual: lts.stateCount },
    );
  }
  return { text, lts };
}

/** Parses a rule's text into a record anchored at `anchorIndex`; a parse error is VALIDATION_FAILED (`rule_invalid`). */
export function parseRuleRecord(text: string, path: string | null, anchorIndex: number): RuleRecord {
  let decl: RuleDecl;
  try {
    decl = parseRuleMemo(text);
  } catch (err) {
    if (err instanceof ParseError) {
      throw new ContractError("VALIDATION_FAILED", `Cannot add rule${path ? ` ${path}` : ""}: ${err.message}`, {
        reason: "rule_invalid",
        line: err.line,
        column: err.column,
        ...(path ? { rule: path } : {}),
      });
    }
    throw err;
  }
  return { text, path, decl, formula: decl.formula, anchorIndex };
}
