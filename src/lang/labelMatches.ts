/**
 * Label matching (docs/language.md): a transition matches a label list L when, for every
 * property p of L, the transition carries p exactly (same sign, name and arguments) or does
 * not mention p at all. A predicate is mentioned only by a property with the same name and
 * the same arguments (unlike the reference, which matches predicates by name).
 */
import type { Property } from "./ast.js";
import { FormulaError } from "./checkErrors.js";
import { type Lts, relativePathProblem, signBit } from "./Lts.js";
import { canonicalProperty, propertyKey } from "./properties.js";

/** Canonical form of a formula's label list; throws FormulaError for a relative path. */
export function canonicalLabel(label: readonly Property[]): Property[] {
  return label.map((p) => {
    const problem = relativePathProblem(p);
    if (problem) throw new FormulaError(problem, "RELATIVE_PATH");
    return canonicalProperty(p);
  });
}

/** Does a transition carrying `transitionLabel` match the formula label `formulaLabel`? Both canonical. */
export function labelMatches(transitionLabel: readonly Property[], formulaLabel: readonly Property[]): boolean {
  return formulaLabel.every((p) => {
    const key = propertyKey(p);
    const mentions = transitionLabel.filter((q) => propertyKey(q) === key);
    return mentions.length === 0 || mentions.some((q) => q.sign === p.sign);
  });
}

/** L̄: the same properties with each sign flipped (for `[<L>] f` = `[L̄] false & <L> f`). */
export function flipLabel(label: readonly Property[]): Property[] {
  return label.map((p) => ({ ...p, sign: p.sign === "+" ? "-" : "+" }));
}

/**
 * Mask over the model's transitions: 1 where the transition matches the canonical label.
 * Costs O(transitions + mentions of L's properties) through the model's inverted index.
 */
export function matchingEdges(lts: Lts, label: readonly Property[]): Uint8Array {
  const mask = new Uint8Array(lts.transitionCount).fill(1);
  for (const p of label) {
    const id = lts.propIds.get(propertyKey(p));
    if (id === undefined) continue; // no transition mentions p, so every one matches it
    const bit = signBit(p.sign);
    for (let i = lts.mentionStart[id]!; i < lts.mentionStart[id + 1]!; i++) {
      if ((lts.mentionSigns[i]! & bit) === 0) mask[lts.mentionEdge[i]!] = 0;
    }
  }
  return mask;
}
