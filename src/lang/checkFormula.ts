/**
 * What the checker refuses in a formula whatever the model (docs/language.md): a fixed-point
 * variable under an odd number of negations, and a relative path in a modal label. Checking it
 * when a rule is added means a contract without a model cannot collect a rule that would
 * refuse every model it is later given.
 */
import type { Formula } from "./ast.js";
import { children } from "./children.js";
import { canonicalLabel } from "./labelMatches.js";
import { checkMonotone } from "./monotonicity.js";

/** Throws FormulaError (MonotonicityError, or code RELATIVE_PATH) for a formula no model could check. */
export function checkFormula(formula: Formula): void {
  checkMonotone(formula);
  // An explicit stack: formulas nest at most 256 levels, but this costs nothing.
  const stack: Formula[] = [formula];
  for (let f = stack.pop(); f !== undefined; f = stack.pop()) {
    if (f.kind === "diamond" || f.kind === "box" || f.kind === "diamondbox") canonicalLabel(f.label);
    for (const c of children(f)) stack.push(c.formula);
  }
}
