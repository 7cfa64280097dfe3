/**
 * Fixed points are only well defined for monotone bodies (LANGUAGE.md §3): a bound variable
 * may occur only under an even number of negations, counting the left side of `implies`.
 */
import type { Formula } from "./ast.js";
import { MonotonicityError } from "./checkErrors.js";

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
  switch (f.kind) {
    case "true":
    case "false":
      return;
    case "ident": {
      const atBinder = bound.get(f.name);
      if (atBinder !== undefined && (negations - atBinder) % 2 !== 0) throw new MonotonicityError(f.name);
      return;
    }
    case "not":
      walk(f.arg, negations + 1, bound);
      return;
    case "implies":
      walk(f.left, negations + 1, bound);
      walk(f.right, negations, bound);
      return;
    case "and":
    case "or":
    case "until":
      walk(f.left, negations, bound);
      walk(f.right, negations, bound);
      return;
    case "diamond":
    case "box":
    case "diamondbox":
    case "always":
    case "eventually":
    case "next":
      walk(f.arg, negations, bound);
      return;
    case "lfp":
    case "gfp":
      walk(f.body, negations, new Map(bound).set(f.variable, negations));
      return;
  }
}
