/**
 * A model compiled for checking (docs/language.md): dense state indices, CSR successor and
 * predecessor lists, canonical labels and an inverted index from property to the transitions
 * that mention it, so label matching costs only the transitions that mention a property.
 */
import type { ModelDecl, Pos, Property, Transition } from "./ast.js";
import { ModelError } from "./checkErrors.js";
import { ACTION_LABEL_PATTERN, canonicalProperty, isPredicate, propertyKey } from "./properties.js";
import { runSteps, STEP_SIZE, type Steps } from "./Steps.js";

export { ModelError } from "./checkErrors.js";

/** One transition of the compiled model; `label` holds canonical properties. */
export interface LtsTransition {
  readonly index: number;
  readonly part: number;
  readonly from: number;
  readonly to: number;
  readonly label: readonly Property[];
  readonly pos: Pos;
}

export type ModelWarningCode = "UNREACHABLE_STATE" | "TERMINAL_STATE" | "INITIAL_NOT_FOUND" | "LABEL_NEVER_CARRIED";

/** A warning about a well-formed model (never an error, docs/language.md). */
export interface ModelWarning {
  readonly code: ModelWarningCode;
  /** The state concerned; null for INITIAL_NOT_FOUND. */
  readonly state: number | null;
  readonly message: string;
}

/** A compiled model. States are 0..stateCount-1, grouped by part. */
export interface Lts {
  readonly name: string;
  readonly parts: readonly string[];
  readonly stateCount: number;
  readonly transitionCount: number;
  /** Part index of each state. */
  readonly statePart: Uint32Array;
  /** Node name of each state (without part). */
  readonly stateNames: readonly string[];
  /** Name shown to users: plain when the model has one part, else `part:name`. */
  readonly displayNames: readonly string[];
  /** Always `part:name`. */
  readonly qualifiedNames: readonly string[];
  /** Initial state of each part, -1 for a part without states. */
  readonly partInitial: Int32Array;
  /** The initial states of all parts that have states, in part order. */
  readonly initialStates: readonly number[];
  readonly transitions: readonly LtsTransition[];
  readonly edgeFrom: Uint32Array;
  readonly edgeTo: Uint32Array;
  /** Outgoing transition indices of state s: succEdge[succStart[s] .. succStart[s+1]). */
  readonly succStart: Uint32Array;
  readonly succEdge: Uint32Array;
  /** Incoming transition indices of state s: predEdge[predStart[s] .. predStart[s+1]). */
  readonly predStart: Uint32Array;
  readonly predEdge: Uint32Array;
  /** Property identity (propertyKey) → dense id. */
  readonly propIds: ReadonlyMap<string, number>;
  /** Mentions of property k: mentionEdge/mentionSigns[mentionStart[k] .. mentionStart[k+1]); signs: 1 = +, 2 = -. */
  readonly mentionStart: Uint32Array;
  readonly mentionEdge: Uint32Array;
  readonly mentionSigns: Uint8Array;
  /** Node name → states of that name in any part. */
  readonly statesByName: ReadonlyMap<string, readonly number[]>;
  readonly warnings: readonly ModelWarning[];
}

/** Sign bit used in `mentionSigns`. */
export function signBit(sign: "+" | "-"): number {
  return sign === "+" ? 1 : 2;
}

/** Index of the argument that is a path, per built-in predicate (canonical names). */
const PATH_ARGUMENT: Readonly<Record<string, number>> = {
  signed_by: 0,
  threshold: 1,
  any_signed: 0,
  all_signed: 0,
  oracle_attests: 0,
  before: 0,
  after: 0,
  hash_matches: 0,
  modifies: 0,
  post_to: 0,
  sets: 0,
  posts_to: 0,
};

const PARTY_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * The reason a property's path argument is unacceptable, or null. Paths are absolute; the
 * only shorthand is a party name as the `signed_by` argument (docs/language.md).
 */
export function relativePathProblem(p: Property): string | null {
  if (!Object.hasOwn(PATH_ARGUMENT, p.name) || p.args === null) return null;
  const index = PATH_ARGUMENT[p.name]!;
  const arg = p.args[index];
  if (arg === undefined || arg.startsWith("/")) return null;
  if (p.name === "signed_by" && PARTY_NAME.test(arg)) return null;
  return `relative path "${arg}" in ${p.sign}${p.name}(...): paths must start with "/"${
    p.name === "signed_by" ? ' (or be a party name, as in signed_by("buyer"))' : ""
  }`;
}

interface PartBuild {
  name: string;
  transitions: Transition[];
}

/** Compiles a parsed model; throws ModelError for a relative path argument. */
export function compileModel(decl: ModelDecl): Lts {
  return runSteps(compileModelSteps(decl));
}

/** `compileModel`, pausing every STEP_SIZE transitions or states (see Steps.ts). */
export function* compileModelSteps(decl: ModelDecl): Steps<Lts> {
  const partBuilds: PartBuild[] = [];
  const partByName = new Map<string, PartBuild>();
  const addPart = (name: string, transitions: readonly Transition[]) => {
    let part = partByName.get(name);
    if (!part) {
      part = { name, transitions: [] };
      partByName.set(name, part);
      partBuilds.push(part);
    }
    // A loop, not push(...): spreading 10^5 arguments overflows the stack.
    for (const t of transitions) part.transitions.push(t);
  };
  // Direct transitions form the part `default`; a repeated part name continues the same component.
  if (decl.transitions.length > 0) addPart("default", decl.transitions);
  for (const part of decl.parts) addPart(part.name, part.transitions);

  const stateNames: string[] = [];
  const statePartList: number[] = [];
  const stateIds = partBuilds.map(() => new Map<string, number>());
  const stateOf = (part: number, name: string): number => {
    const ids = stateIds[part]!;
    let id = ids.get(name);
    if (id === undefined) {
      id = stateNames.length;
      ids.set(name, id);
      stateNames.push(name);
      statePartList.push(part);
    }
    return id;
  };

  const transitions: LtsTransition[] = [];
  for (const [partIndex, part] of partBuilds.entries()) {
    for (const t of part.transitions) {
      const label = t.label.map((p) => {
        const problem = relativePathProblem(p);
        if (problem) throw new ModelError(problem, "MODEL_ERROR", t.pos.line, t.pos.column);
        return canonicalProperty(p);
      });
      const from = stateOf(partIndex, t.from);
      const to = stateOf(partIndex, t.to);
      transitions.push({ index: transitions.length, part: partIndex, from, to, label, pos: t.pos });
      if (transitions.length % STEP_SIZE === 0) yield;
    }
  }

  const n = stateNames.length;
  const m = transitions.length;
  const parts = partBuilds.map((p) => p.name);
  const statePart = Uint32Array.from(statePartList);
  const qualifiedNames: string[] = [];
  for (const [s, name] of stateNames.entries()) {
    qualifiedNames.push(`${parts[statePart[s]!]}:${name}`);
    if ((s + 1) % STEP_SIZE === 0) yield;
  }
  const displayNames = parts.length === 1 ? stateNames.slice() : qualifiedNames;
  const edgeFrom = new Uint32Array(m);
  const edgeTo = new Uint32Array(m);
  for (const t of transitions) {
    edgeFrom[t.index] = t.from;
    edgeTo[t.index] = t.to;
  }
  const [succStart, succEdge] = csr(n, edgeFrom);
  const [predStart, predEdge] = csr(n, edgeTo);
  yield;
  const mentions = yield* buildMentions(transitions);

  const statesByName = new Map<string, number[]>();
  for (const [s, name] of stateNames.entries()) {
    const list = statesByName.get(name);
    if (list) list.push(s);
    else statesByName.set(name, [s]);
    if ((s + 1) % STEP_SIZE === 0) yield;
  }

  const warnings: ModelWarning[] = [];
  const partInitial = new Int32Array(parts.length).fill(-1);
  const declared = decl.initial;
  if (declared !== null && !statesByName.has(declared)) {
    warnings.push({
      code: "INITIAL_NOT_FOUND",
      state: null,
      message: `initial state ${declared} occurs in no transition; each part starts at its first source state instead`,
    });
  }
  partBuilds.forEach((part, partIndex) => {
    if (part.transitions.length === 0) return;
    let name: string;
    if (declared !== null && part.transitions.some((t) => t.from === declared || t.to === declared)) {
      name = declared;
    } else {
      const targets = new Set(part.transitions.map((t) => t.to));
      name = (part.transitions.find((t) => !targets.has(t.from)) ?? part.transitions[0]!).from;
    }
    partInitial[partIndex] = stateIds[partIndex]!.get(name)!;
  });
  const initialStates = [...partInitial].filter((s) => s >= 0);
  yield;

  const lts: Lts = {
    name: decl.name,
    parts,
    stateCount: n,
    transitionCount: m,
    statePart,
    stateNames,
    displayNames,
    qualifiedNames,
    partInitial,
    initialStates,
    transitions,
    edgeFrom,
    edgeTo,
    succStart,
    succEdge,
    predStart,
    predEdge,
    ...mentions,
    statesByName,
    warnings,
  };
  // A loop, not push(...): a model may have 10^5 warnings.
  for (const w of yield* structuralWarnings(lts)) warnings.push(w);
  return lts;
}

/** Groups edge indices by `key[edge]` into compressed sparse rows over n states. */
function csr(n: number, key: Uint32Array): [Uint32Array, Uint32Array] {
  const start = new Uint32Array(n + 1);
  for (let e = 0; e < key.length; e++) start[key[e]! + 1]!++;
  for (let s = 0; s < n; s++) start[s + 1]! += start[s]!;
  const fill = start.slice(0, n);
  const edges = new Uint32Array(key.length);
  for (let e = 0; e < key.length; e++) edges[fill[key[e]!]!++] = e;
  return [start, edges];
}

function* buildMentions(transitions: readonly LtsTransition[]) {
  const propIds = new Map<string, number>();
  // Flat (property, transition, signs) triples first, then a counting sort into CSR: a Map per
  // property costs several times more at 10^5 transitions.
  const props: number[] = [];
  const edges: number[] = [];
  const signs: number[] = [];
  for (const t of transitions) {
    const first = props.length;
    for (const p of t.label) {
      const key = propertyKey(p);
      let id = propIds.get(key);
      if (id === undefined) {
        id = propIds.size;
        propIds.set(key, id);
      }
      // A label mentioning p twice (+p -p) is one mention carrying both signs.
      let i = first;
      while (i < props.length && props[i] !== id) i++;
      if (i < props.length) signs[i]! |= signBit(p.sign);
      else {
        props.push(id);
        edges.push(t.index);
        signs.push(signBit(p.sign));
      }
    }
    if ((t.index + 1) % STEP_SIZE === 0) yield;
  }
  const mentionStart = new Uint32Array(propIds.size + 1);
  for (const id of props) mentionStart[id + 1]!++;
  for (let k = 0; k < propIds.size; k++) mentionStart[k + 1]! += mentionStart[k]!;
  const fill = mentionStart.slice(0, propIds.size);
  const mentionEdge = new Uint32Array(props.length);
  const mentionSigns = new Uint8Array(props.length);
  for (let i = 0; i < props.length; i++) {
    const at = fill[props[i]!]!++;
    mentionEdge[at] = edges[i]!;
    mentionSigns[at] = signs[i]!;
  }
  return { propIds, mentionStart, mentionEdge, mentionSigns };
}

function* structuralWarnings(lts: Lts): Steps<ModelWarning[]> {
  const warnings: ModelWarning[] = [];
  const reached = new Uint8Array(lts.stateCount);
  const queue: number[] = [...lts.initialStates];
  for (const s of queue) reached[s] = 1;
  for (let i = 0; i < queue.length; i++) {
    const s = queue[i]!;
    for (let j = lts.succStart[s]!; j < lts.succStart[s + 1]!; j++) {
      const t = lts.edgeTo[lts.succEdge[j]!]!;
      if (!reached[t]) {
        reached[t] = 1;
        queue.push(t);
      }
    }
  }
  for (let s = 0; s < lts.stateCount; s++) {
    const name = lts.displayNames[s]!;
    if (!reached[s]) {
      warnings.push({
        code: "UNREACHABLE_STATE",
        state: s,
        message: `state ${name} is unreachable from the initial state`,
      });
    }
    if (lts.succStart[s] === lts.succStart[s + 1]) {
      warnings.push({
        code: "TERMINAL_STATE",
        state: s,
        message: `state ${name} has no outgoing transition; add a self-loop (${lts.stateNames[s]} -> ${lts.stateNames[s]}) if it is terminal on purpose`,
      });
    }
    if ((s + 1) % STEP_SIZE === 0) yield;
  }
  // A static label a commit cannot carry (action labels are upper case) never holds: a
  // transition that requires one is dead, though it is listed among the valid actions.
  for (const t of lts.transitions) {
    const dead = t.label.find((p) => p.sign === "+" && !isPredicate(p) && !ACTION_LABEL_PATTERN.test(p.name));
    if (dead !== undefined) {
      warnings.push({
        code: "LABEL_NEVER_CARRIED",
        state: t.from,
        message: `transition ${lts.displayNames[t.from]} -> ${lts.displayNames[t.to]} requires +${dead.name}, which no commit can carry (action labels match ${ACTION_LABEL_PATTERN.source}): it can never be taken`,
      });
    }
    if ((t.index + 1) % STEP_SIZE === 0) yield;
  }
  return warnings;
}

/**
 * States named by `ref`: `part:name` names one state, a plain name every state of that name
 * in any part. Empty when nothing matches.
 */
export function findStates(lts: Lts, ref: string): number[] {
  const colon = ref.indexOf(":");
  if (colon >= 0) {
    const part = lts.parts.indexOf(ref.slice(0, colon));
    const name = ref.slice(colon + 1);
    return (lts.statesByName.get(name) ?? []).filter((s) => lts.statePart[s] === part);
  }
  return [...(lts.statesByName.get(ref) ?? [])];
}
