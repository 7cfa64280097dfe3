import type { Formula } from "./ast.js";

/** One direct subformula and whether it sits in a negative position (under `not`, left of `->`). */
export interface Child {
  formula: Formula;
  negated: boolean;
}

/**
 * A formula's direct subformulas in order, for the walks that treat every operator alike
 * (free variables, negation parity, monotonicity): they differ only at identifiers and binders.
 */
export function children(f: Formula): Child[] {
  switch (f.kind) {
    case "true":
    case "false":
    case "ident":
      return [];
    case "not":
      return [{ formula: f.arg, negated: true }];
    case "implies":
      return [
        { formula: f.left, negated: true },
        { formula: f.right, negated: false },
      ];
    case "and":
    case "or":
    case "until":
      return [
        { formula: f.left, negated: false },
        { formula: f.right, negated: false },
      ];
    case "diamond":
    case "box":
    case "diamondbox":
    case "always":
    case "eventually":
    case "next":
      return [{ formula: f.arg, negated: false }];
    case "lfp":
    case "gfp":
      return [{ formula: f.body, negated: false }];
  }
}
