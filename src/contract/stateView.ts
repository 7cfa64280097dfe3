import { METHOD_LABELS } from "../lang/properties.js";
import type { ContractState } from "./ContractState.js";
import { labelText } from "./step.js";

/** ValidAction of docs/api.md, with the extra fields of docs/language.md. */
export interface ValidAction {
  action: string;
  required_signer: string;
  required_signers: string[];
  to: string;
  label: string;
}

/** State object of docs/api.md plus `current_states` and `head` (docs/api.md). */
export interface StateView {
  current_state: string;
  current_states: string[];
  valid_actions: ValidAction[];
  commit_count: number;
  head: string;
}

const METHODS = new Set<string>(METHOD_LABELS);
/** Predicates whose argument names signers: the path (or directory) is at this argument index. */
const SIGNER_ARG: Readonly<Record<string, number>> = { signed_by: 0, threshold: 1, any_signed: 0, all_signed: 0 };

/** Actions that may follow from the current states: one per transition leaving one, in source order (docs/language.md). */
export function validActions(state: ContractState): ValidAction[] {
  if (state.model === null) return [];
  const { lts } = state.model;
  const current = new Set(state.current);
  const actions: ValidAction[] = [];
  for (const t of lts.transitions) {
    if (!current.has(t.from)) continue;
    const positive = t.label.filter((p) => p.sign === "+");
    const statics = positive.filter((p) => p.args === null && p.name !== "adds_rule").map((p) => p.name);
    const action = statics.find((n) => !METHODS.has(n)) ?? statics.find((n) => METHODS.has(n)) ?? "";
    const signers = positive.flatMap((p) => {
      const i = Object.hasOwn(SIGNER_ARG, p.name) ? SIGNER_ARG[p.name] : undefined;
      return i === undefined || p.args === null || p.args[i] === undefined ? [] : [p.args[i]!];
    });
    const first = positive.find((p) => p.name === "signed_by" && p.args !== null);
    actions.push({
      action,
      required_signer: first?.args?.[0] ?? "",
      required_signers: signers,
      to: lts.displayNames[t.to]!,
      label: labelText(t.label),
    });
  }
  return actions;
}

/** The state object of a contract. */
export function stateView(state: ContractState): StateView {
  return {
    current_state: state.currentStateName,
    current_states: state.currentStateNames,
    valid_actions: validActions(state),
    commit_count: state.length,
    head: state.head,
  };
}
