/**
 * The actions that may follow a state, for people, in one form wherever they are printed
 * (init, clone, commit, status): a transition that names no action accepts any commit and
 * shows as `(any)`; "-" means that nothing may follow.
 */
import type { StateView, ValidAction } from "../contract/engine.js";

/** One action: its label, or `(any)`, then the state paths whose keys must sign it. */
export function actionText(a: ValidAction): string {
  const signers = a.required_signers.length > 0 ? ` (signed by ${a.required_signers.join(", ")})` : "";
  return `${a.action || "(any)"}${signers}`;
}

/** The state and what may follow, on one line: `State open; next: CREATE (signed by …), RECV`. */
export function stateLine(view: StateView): string {
  return `State ${view.current_state || "(no model)"}; next: ${view.valid_actions.map(actionText).join(", ") || "-"}`;
}
