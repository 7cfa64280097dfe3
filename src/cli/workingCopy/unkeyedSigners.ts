import type { ModelDecl } from "../../lang/ast.js";
import { modelTransitions } from "../../lang/modelTransitions.js";

/**
 * The `.id` paths a model's `+signed_by` names that hold no key in `state`. The hub refuses
 * to overwrite a key unless a transition carries `+modifies` of its path, but posting the
 * first one is open: whichever party's commit posts a key there first decides who signs as
 * that role (a buyer could name itself the arbiter). Templates require every signing role, so
 * this matters for models written by hand or synthesized.
 */
export function unkeyedSigners(model: ModelDecl, state: Readonly<Record<string, unknown>>): string[] {
  const out = new Set<string>();
  for (const t of modelTransitions(model)) {
    for (const p of t.label) {
      const path = p.args?.[0];
      if (p.sign === "+" && p.name === "signed_by" && path?.endsWith(".id") && !Object.hasOwn(state, path))
        out.add(path);
    }
  }
  return [...out].sort();
}
