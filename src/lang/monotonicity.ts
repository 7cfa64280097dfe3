/**
 * Fixed points are only well defined for monotone bodies (docs/language.md): a bound variable
 * may occur only under an even number of negations, counting the left side of `implies`.
 */
import type { Formula } from "./ast.js";
import { MonotonicityError } from "./checkErrors.js";
import { children } from "./children.js";

export { MonotonicityError } from "./checkErrors.js";

/** Throws MonotonicityError naming the first bound variable that occurs under an odd number of negations. */
export function checkMonotone(formula: Formula): void {
  walk(formula, 0, new Map());
}

/** True when every fixed-point variable of the formula occurs only under even negations. */
export function isMonotone(formula: Formula): boolean {
  try {
    checkMonotone(formula);
    return true;
  } catch (error) {
    if (error instanceof MonotonicityError) return false;
    throw error;
  }
}

/** `bound` maps each variable in scope to the negation depth at its binder. */
function walk(f: Formula, negations: number, bound: ReadonlyMap<string, number>): void {
  if (f.kind === "ident") {
    const atBinder = bound.get(f.name);
    if (atBinder !== undefined && (negations - atBinder) % 2 !== 0) throw new MonotonicityError(f.name);
    return;
  }
  const inner = f.kind === "lfp" || f.kind === "gfp" ? new Map(bound).set(f.variable, negations) : bound;
  for (const c of children(f)) walk(c.formula, negations + (c.negated ? 1 : 0), inner);
}
