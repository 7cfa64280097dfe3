import type { Lts, LtsTransition } from "../lang/Lts.js";
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

/*
 * Every read of the state, every commit's answer and every subscriber's event carries the
 * valid actions, and a model may leave one state by tens of thousands of transitions: listing
 * them again for each read held the event loop 50-80 ms per anonymous GET. So the list made
 * for a current-state set is kept with that set (a new array whenever it changes: a commit, a
 * replay, a load; the model is compared too, so a kept list is never stale), and each
 * transition's entry is made once per compiled model, so a new state set is listed by lookups.
 * Entries and lists are shared by every caller: they are only ever serialized, never changed.
 */
const LISTED = new WeakMap<readonly number[], { lts: Lts; actions: ValidAction[] }>();
const ENTRIES = new WeakMap<LtsTransition, ValidAction>();

/** Actions that may follow from the current states: one per transition leaving one, in source order (docs/language.md). */
export function validActions(state: ContractState): ValidAction[] {
  if (state.model === null) return [];
  const { lts } = state.model;
  const listed = LISTED.get(state.current);
  if (listed !== undefined && listed.lts === lts) return listed.actions;
  const current = new Set(state.current);
  const actions: ValidAction[] = [];
  for (const t of lts.transitions) if (current.has(t.from)) actions.push(entryOf(lts, t));
  LISTED.set(state.current, { lts, actions });
  return actions;
}

/** The valid-action entry of transition `t` of `lts` (made once). */
function entryOf(lts: Lts, t: LtsTransition): ValidAction {
  let entry = ENTRIES.get(t);
  if (entry !== undefined) return entry;
  const positive = t.label.filter((p) => p.sign === "+");
  const statics = positive.filter((p) => p.args === null && p.name !== "adds_rule").map((p) => p.name);
  const action = statics.find((n) => !METHODS.has(n)) ?? statics.find((n) => METHODS.has(n)) ?? "";
  const signers = positive.flatMap((p) => {
    const i = Object.hasOwn(SIGNER_ARG, p.name) ? SIGNER_ARG[p.name] : undefined;
    return i === undefined || p.args === null || p.args[i] === undefined ? [] : [p.args[i]!];
  });
  const first = positive.find((p) => p.name === "signed_by" && p.args !== null);
  entry = {
    action,
    required_signer: first?.args?.[0] ?? "",
    required_signers: signers,
    to: lts.displayNames[t.to]!,
    label: labelText(t.label),
  };
  ENTRIES.set(t, entry);
  return entry;
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
