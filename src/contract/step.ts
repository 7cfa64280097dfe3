/**
 * One step of a contract through its model (docs/language.md): which transitions leaving the
 * current states a commit enables, the new state set, and, when none is enabled, why not.
 */
import type { Property } from "../lang/ast.js";
import type { Lts, LtsTransition } from "../lang/Lts.js";
import { printProperty } from "../lang/printer.js";
import { isPredicate, propertyKey } from "../lang/properties.js";
import { evaluateBuiltin, isBuiltinPredicate, type PredicateInput, pathCovers } from "./builtinPredicates.js";
import type { Operation } from "./Commit.js";
import { ContractError } from "./ContractError.js";
import { decodeCustomModule } from "./customModuleMemo.js";
import type { PredicateResult, WasmRunner } from "./EngineContext.js";

/** Methods whose operations need a transition that names them (docs/language.md). */
const SENSITIVE: Readonly<Record<string, string>> = {
  model: "MODEL",
  rule: "RULE",
  create: "CREATE",
  send: "SEND",
  recv: "RECV",
  repost: "REPOST",
};

/** Everything known about a commit when matching it against transitions. */
export interface CommitFacts {
  contractId: string;
  hash: string;
  parent: string | null;
  /** Static facts: action labels and upper-cased methods. */
  labels: ReadonlySet<string>;
  input: PredicateInput;
  wasm: WasmRunner | null;
  /** Predicate results of this commit by property key, so each is evaluated once. */
  cache: Map<string, PredicateResult>;
  /**
   * Judge a proposal "complete except for signatures": a required (`+`) signature predicate
   * holds when the signatures it lacks could still be added, i.e. as if every key had signed.
   * Forbidden (`-`) ones still see only the signatures present: more signatures never help them.
   */
  optimisticSignatures?: boolean;
  /**
   * Yields between groups of TRANSITIONS_PER_TICK transitions (the hub's slices; see
   * EngineContext.tick). Without it a commit on a model with thousands of transitions leaving
   * one state is judged in one go.
   */
  tick?: () => Promise<void> | void;
  /**
   * No bound on the custom predicates the decision runs (DECISION_EVALUATIONS): the hub's
   * trusted replays of its own store, which must load whatever it once accepted.
   */
  unbounded?: boolean;
  /** Custom predicates the decision has run so far (see DECISION_EVALUATIONS). */
  decided: number;
  /** The first custom predicate of this commit the host did not finish (see UNFINISHED_CAUSES). */
  unfinished?: Unfinished;
}

/** A custom predicate the host did not finish, and why. */
export interface Unfinished {
  /** As in the model, with its sign: `-slow(1)`. */
  property: string;
  cause: string;
}

/**
 * Causes that say how the machine fared, not what the module answers: the wall-clock backstop
 * fired (a loaded host, or a gas limit so high a module outlives it), or the worker thread
 * died. Such a predicate is false, but another run of the same module on the same input may
 * hold. Accepting a commit on it would store a decision that `verify`, a working copy or the
 * hub's own replay may not repeat (a `-name(…)` guard would pass, a nondeterministic model
 * would reach fewer states), and a replay refusing a stored commit for it would call a sound
 * log damaged. So neither happens: the commit is UNAVAILABLE `predicate_unfinished`.
 */
const UNFINISHED_CAUSES: ReadonlySet<string> = new Set(["timeout", "worker_error"]);

/** The refusal to decide on an unfinished custom predicate: 503 UNAVAILABLE, try again. */
export function unfinishedError(u: Unfinished): ContractError {
  return new ContractError(
    "UNAVAILABLE",
    `Cannot decide the commit: custom predicate ${u.property} did not finish (${u.cause}); try again`,
    { reason: "predicate_unfinished", property: u.property, cause: u.cause, retry_after: 1 },
  );
}

/** The predicates that only look at who signed the commit. */
export const SIGNATURE_PREDICATES: ReadonlySet<string> = new Set([
  "signed_by",
  "threshold",
  "any_signed",
  "all_signed",
]);

/** A signer set holding every key: a signature predicate then fails only for reasons other than missing signatures. */
const EVERY_KEY: ReadonlySet<string> = new (class extends Set<string> {
  override has(): boolean {
    return true;
  }
})();

/**
 * Builds the facts of a commit. Written field by field, not as `{ ...init, labels, … }`: on
 * Node 20 an object spread followed by more fields takes V8's slow path, 1–5 µs a call, and
 * this runs once per commit (docs/benchmarks.md, thirteenth round).
 */
export function commitFacts(
  init: Omit<CommitFacts, "labels" | "cache" | "decided" | "unfinished">,
  actionLabels: readonly string[],
): CommitFacts {
  const labels = new Set<string>(actionLabels);
  for (const op of init.input.ops) if (op.method !== "genesis") labels.add(op.method.toUpperCase());
  const facts: CommitFacts = {
    contractId: init.contractId,
    hash: init.hash,
    parent: init.parent,
    labels,
    input: init.input,
    wasm: init.wasm,
    cache: new Map(),
    decided: 0,
  };
  if (init.optimisticSignatures !== undefined) facts.optimisticSignatures = init.optimisticSignatures;
  if (init.tick !== undefined) facts.tick = init.tick;
  if (init.unbounded !== undefined) facts.unbounded = init.unbounded;
  return facts;
}

/** One property of a candidate transition that stopped it. */
export interface FailedProperty {
  property: string;
  /**
   * `not_evaluated`: a custom predicate the explanation did not run (past EXPLANATION_EVALUATIONS,
   * or for want of a runner: wasmDisabledError).
   */
  kind: "missing" | "forbidden" | "needs_label" | "needs_modifies" | "not_evaluated";
  errors?: string[];
  /** Metered gas of a custom WASM predicate (built-ins report none here). */
  gas_used?: number;
}

/** A transition leaving a current state, and what stopped it (empty when enabled). */
export interface Candidate {
  from: string;
  to: string;
  label: string;
  failed: FailedProperty[];
}

export interface StepResult {
  /** New current states, sorted; empty when the commit is rejected. */
  next: number[];
  /** When rejected: every transition tried, ranked by number of failed properties. */
  candidates: Candidate[];
  /** When rejected: the explanation reached EXPLANATION_EVALUATIONS and left custom predicates unevaluated. */
  cutShort?: true;
  /** When rejected: there is no runner, and the explanation left deployed custom predicates unevaluated. */
  noRunner?: true;
  /** When rejected: a custom predicate the decision ran did not finish (a replay must not call this damage). */
  unfinished?: Unfinished;
}

/**
 * Custom predicates the explanation of a refusal may run beyond those the decision already ran
 * (results are cached per commit, so those cost nothing again). Deciding needs at most one
 * failing property per transition; explaining evaluates every property of every candidate, so
 * a model with hundreds of guarded transitions made one refused commit run hundreds of modules.
 * The hub's work budget does not see predicate work (it is gas-metered on its own threads,
 * and the runner reports gas, not time), and the explanation is not needed to decide, so it is
 * bounded here rather than charged: deterministic (a count, not time), the same refusal on
 * the hub, in `verify` and in a working copy. Past the cap the remaining custom predicates are
 * listed as `not_evaluated` and the refusal says `explanation_cut_short` (docs/engine.md).
 */
export const EXPLANATION_EVALUATIONS = 16;

/**
 * Transitions judged between two calls of the facts' tick. A model may leave one state by as
 * many transitions as its text holds (tens of thousands near the 1 MiB limit), each guarded by
 * another built-in predicate, and every one is judged, so one commit on such a model held the
 * event loop for seconds. Counted, not timed, so an ordinary model (a handful of transitions
 * per state) never pays for a tick; the tick itself decides whether the slice is used up.
 */
export const TRANSITIONS_PER_TICK = 64;

/**
 * Custom predicates one decision may run (distinct ones: results are cached per commit). Each
 * may burn its whole gas limit (10^7 by default, about 60 ms of a predicate thread), and every
 * transition leaving the current states is judged, so a model leaving one state by thousands
 * of transitions, each with another custom predicate, made one commit cost minutes of the
 * threads every contract shares, and again on every replay. Deciding cannot stop half-way and
 * guess, so past the bound the commit is refused (422 `predicate_budget`). A count, not time
 * or gas: the same commit gets the same answer on the hub, in `verify` and in a working copy.
 * The hub's trusted replays of its own store are not bounded (CommitFacts.unbounded).
 */
export const DECISION_EVALUATIONS = 32;

/**
 * The refusal details of a step's incomplete explanation: `explanation_cut_short: true` past
 * EXPLANATION_EVALUATIONS, `wasm_disabled: true` when custom predicates were not run for want
 * of a runner; nothing for a full explanation.
 */
export function incompleteExplanation(result: StepResult): { explanation_cut_short?: true; wasm_disabled?: true } {
  return {
    ...(result.cutShort ? { explanation_cut_short: true as const } : {}),
    ...(result.noRunner ? { wasm_disabled: true as const } : {}),
  };
}

/** What is left of a refusal's explanation allowance (EXPLANATION_EVALUATIONS), shared by its candidates. */
interface Explaining {
  left: number;
  cutShort: boolean;
  /** Custom predicates were left unevaluated for want of a runner (see wasmDisabledError). */
  noRunner: boolean;
}

/** The text of a label list, as in a model: `+DEPOSIT +signed_by(/users/buyer.id)`. */
export function labelText(label: readonly Property[]): string {
  return label.map(printProperty).join(" ");
}

const CUSTOM_CODE_PREFIX = "/_code/custom/";

/**
 * The refusal to decide without a runner: a commit whose decision needs a custom predicate
 * (one whose module is deployed) on a context without `wasm` (a library caller without
 * `createWasmRunner`, a hub started with `--no-wasm`). Taking the predicate as false would let
 * a `-name(…)` guard pass, and a checker without a runner would accept a log the hub refuses;
 * as true, the reverse. So it is 503 UNAVAILABLE `wasm_disabled`, naming the predicate.
 */
export function wasmDisabledError(p: Property): ContractError {
  const property = printProperty(p);
  return new ContractError(
    "UNAVAILABLE",
    `Cannot decide the commit: it needs custom predicate ${property}, and custom WASM predicates are not run here (no runner)`,
    { reason: "wasm_disabled", property },
  );
}

/** The base64 module of custom predicate `p` in the contract's state, if one is deployed. */
function moduleOf(p: Property, facts: CommitFacts): string | undefined {
  const encoded = facts.input.data.get(`${CUSTOM_CODE_PREFIX}${p.name}.wasm`);
  return typeof encoded === "string" ? encoded : undefined;
}

async function evaluateCustom(p: Property, facts: CommitFacts): Promise<PredicateResult> {
  const encoded = moduleOf(p, facts);
  if (encoded === undefined)
    return { valid: false, gas_used: 0, errors: [`no predicate module at ${CUSTOM_CODE_PREFIX}${p.name}.wasm`] };
  if (facts.wasm === null) throw wasmDisabledError(p);
  // A big module is decoded and hashed once, not at each of its evaluations (customModuleMemo.ts).
  const module = decodeCustomModule(encoded);
  return facts.wasm(
    module.bytes,
    { args: p.args ?? [], contract_id: facts.contractId, ...customInput(facts) },
    module.digest,
  );
}

/**
 * The commit and state a custom predicate sees, built once per commit: every predicate of the
 * commit gets the same two objects, so the runner serialises them once (predicates/).
 */
const CUSTOM_INPUTS = new WeakMap<CommitFacts, { commit: Record<string, unknown>; state: Record<string, unknown> }>();
function customInput(facts: CommitFacts): { commit: Record<string, unknown>; state: Record<string, unknown> } {
  let made = CUSTOM_INPUTS.get(facts);
  if (made === undefined) {
    const { input } = facts;
    made = {
      commit: {
        hash: facts.hash,
        parent: facts.parent,
        data: input.ops,
        labels: [...facts.labels],
        signers: [...input.signers],
        timestamp: input.timestamp,
      },
      state: Object.fromEntries(input.data),
    };
    CUSTOM_INPUTS.set(facts, made);
  }
  return made;
}

/**
 * Whether property `p` holds, when that needs no await: a static label, a built-in predicate
 * (evaluated and cached here), or a custom one already evaluated for this commit. Undefined
 * for a custom predicate still to run, and for the proposals' optimistic signature reading
 * (propertyHolds then answers). Most commits are decided on this path alone.
 */
function holdsNow(p: Property, facts: CommitFacts): boolean | undefined {
  if (!isPredicate(p)) return facts.labels.has(p.name);
  if (facts.optimisticSignatures === true) return undefined;
  const key = keyOf(p);
  const cached = facts.cache.get(key);
  if (cached !== undefined) return cached.valid;
  const result = evaluateBuiltin(p.name, p.args ?? [], facts.input);
  if (result === null) return undefined;
  facts.cache.set(key, result);
  return result.valid;
}

// A property's cache key, computed once per parsed property (a transition's properties are
// checked for every commit).
const KEYS = new WeakMap<Property, string>();
function keyOf(p: Property): string {
  let key = KEYS.get(p);
  if (key === undefined) {
    key = propertyKey(p);
    KEYS.set(p, key);
  }
  return key;
}

// One optimistic input per commit's facts, so the built-ins' per-input memos serve it too.
const OPTIMISTIC = new WeakMap<CommitFacts, PredicateInput>();
function optimisticInput(facts: CommitFacts): PredicateInput {
  let input = OPTIMISTIC.get(facts);
  if (input === undefined) {
    input = { ...facts.input, signers: EVERY_KEY };
    OPTIMISTIC.set(facts, input);
  }
  return input;
}

/** Whether property `p` (canonical, sign ignored) holds for the commit. */
export async function propertyHolds(p: Property, facts: CommitFacts): Promise<PredicateResult> {
  if (!isPredicate(p)) return { valid: facts.labels.has(p.name), gas_used: 0, errors: [] };
  if (facts.optimisticSignatures === true && p.sign === "+" && SIGNATURE_PREDICATES.has(p.name)) {
    const key = `signable:${keyOf(p)}`;
    let result = facts.cache.get(key);
    if (result === undefined) {
      result = evaluateBuiltin(p.name, p.args ?? [], optimisticInput(facts))!;
      facts.cache.set(key, result);
    }
    return result;
  }
  const key = keyOf(p);
  const cached = facts.cache.get(key);
  if (cached !== undefined) return cached;
  const result = evaluateBuiltin(p.name, p.args ?? [], facts.input) ?? (await evaluateCustom(p, facts));
  facts.cache.set(key, result);
  if (result.cause !== undefined && UNFINISHED_CAUSES.has(result.cause))
    facts.unfinished ??= { property: printProperty(p), cause: result.cause };
  return result;
}

/**
 * What a transition must carry for the commit's sensitive operations: `+MODEL` etc., and a
 * `+modifies(p)` covering each overwritten `.id` value and each post under `/_code/`.
 */
export function sensitiveNeeds(
  ops: readonly Operation[],
  data: ReadonlyMap<string, unknown>,
): { labels: string[]; paths: string[] } {
  const labels = new Set<string>();
  const paths: string[] = [];
  for (const op of ops) {
    const label = SENSITIVE[op.method];
    if (label !== undefined) labels.add(label);
    if (op.method === "post" && op.path !== undefined) {
      const overwrite = op.path.endsWith(".id") && data.has(op.path) && data.get(op.path) !== op.value;
      if (overwrite || op.path.startsWith("/_code/")) paths.push(op.path);
    }
  }
  return { labels: [...labels], paths };
}

async function judge(
  t: LtsTransition,
  facts: CommitFacts,
  needs: { labels: string[]; paths: string[] },
  explaining: Explaining,
): Promise<FailedProperty[]> {
  const failed: FailedProperty[] = [];
  for (const p of t.label) {
    const custom = isPredicate(p) && !isBuiltinPredicate(p.name);
    if (custom && !facts.cache.has(keyOf(p))) {
      // Without a runner a deployed module's answer is unknown: named, neither false nor true.
      if (facts.wasm === null && moduleOf(p, facts) !== undefined) {
        explaining.noRunner = true;
        failed.push({ property: printProperty(p), kind: "not_evaluated" });
        continue;
      }
      if (explaining.left <= 0) {
        explaining.cutShort = true;
        failed.push({ property: printProperty(p), kind: "not_evaluated" });
        continue;
      }
      explaining.left--;
    }
    const result = await propertyHolds(p, facts);
    const gas = custom ? { gas_used: result.gas_used } : {};
    if (p.sign === "+" && !result.valid) {
      failed.push({
        property: printProperty(p),
        kind: "missing",
        ...(result.errors.length ? { errors: result.errors } : {}),
        ...gas,
      });
    } else if (p.sign === "-" && result.valid) {
      failed.push({ property: printProperty(p), kind: "forbidden", ...gas });
    }
  }
  for (const name of needs.labels) {
    if (!t.label.some((p) => p.sign === "+" && p.name === name && p.args === null)) {
      failed.push({ property: `+${name}`, kind: "needs_label" });
    }
  }
  for (const path of needs.paths) {
    const covered = t.label.some(
      (p) => p.sign === "+" && p.name === "modifies" && p.args !== null && pathCovers(p.args[0] ?? "", path),
    );
    if (!covered) failed.push({ property: `+modifies(${path})`, kind: "needs_modifies" });
  }
  return failed;
}

/** Whether transition `t` takes the commit (every property as its sign says, sensitive operations covered). */
export async function transitionEnabled(
  t: LtsTransition,
  facts: CommitFacts,
  needs: { labels: string[]; paths: string[] },
): Promise<boolean> {
  return transitionEnabledNow(t, facts, needs) ?? (await transitionEnabledAwaiting(t, facts, needs));
}

/** transitionEnabled's path for a transition with a custom predicate to run (awaited in order). */
async function transitionEnabledAwaiting(
  t: LtsTransition,
  facts: CommitFacts,
  needs: { labels: string[]; paths: string[] },
): Promise<boolean> {
  for (const p of t.label) {
    if (isPredicate(p) && !isBuiltinPredicate(p.name) && !facts.cache.has(keyOf(p))) spendEvaluation(facts);
    if ((await propertyHolds(p, facts)).valid !== (p.sign === "+")) return false;
  }
  return coversNeeds(t, needs);
}

/** Counts one more custom predicate run by the decision; past DECISION_EVALUATIONS the commit is refused. */
function spendEvaluation(facts: CommitFacts): void {
  if (facts.unbounded === true) return;
  if (facts.decided >= DECISION_EVALUATIONS)
    throw new ContractError(
      "VALIDATION_FAILED",
      `Cannot decide the commit: it needs more than ${DECISION_EVALUATIONS} custom predicates evaluated (the limit per commit)`,
      { reason: "predicate_budget", limit: DECISION_EVALUATIONS },
    );
  facts.decided++;
}

/** transitionEnabled without an await; undefined when a property needs one (see holdsNow). */
function transitionEnabledNow(
  t: LtsTransition,
  facts: CommitFacts,
  needs: { labels: string[]; paths: string[] },
): boolean | undefined {
  for (const p of t.label) {
    const holds = holdsNow(p, facts);
    if (holds === undefined) return undefined;
    if (holds !== (p.sign === "+")) return false;
  }
  return coversNeeds(t, needs);
}

/** Whether `t` names every sensitive operation of the commit (docs/language.md). */
function coversNeeds(t: LtsTransition, needs: { labels: string[]; paths: string[] }): boolean {
  for (const name of needs.labels) {
    if (!t.label.some((p) => p.sign === "+" && p.name === name && p.args === null)) return false;
  }
  return needs.paths.every((path) =>
    t.label.some(
      (p) => p.sign === "+" && p.name === "modifies" && p.args !== null && pathCovers(p.args[0] ?? "", path),
    ),
  );
}

/**
 * Steps the state set `current` with a commit: the new states are the targets of every
 * enabled transition leaving a current state (models may be nondeterministic). When none is
 * enabled, `candidates` explains every transition that was tried, running at most
 * EXPLANATION_EVALUATIONS more custom predicates (`cutShort` past it) and none without a runner
 * (`noRunner`); accepted steps skip that work. A decision that needs a custom predicate and
 * has no runner throws UNAVAILABLE `wasm_disabled` (wasmDisabledError).
 * A step that would be accepted although a custom predicate did not finish throws
 * UNAVAILABLE (see UNFINISHED_CAUSES); a refusal says so in `unfinished`.
 */
export async function step(lts: Lts, current: readonly number[], facts: CommitFacts): Promise<StepResult> {
  const needs = sensitiveNeeds(facts.input.ops, facts.input.data);
  const next = new Set<number>();
  let judged = 0;
  for (const s of current) {
    for (let i = lts.succStart[s]!; i < lts.succStart[s + 1]!; i++) {
      if (++judged % TRANSITIONS_PER_TICK === 0) await facts.tick?.();
      const t = lts.transitions[lts.succEdge[i]!]!;
      if (transitionEnabledNow(t, facts, needs) ?? (await transitionEnabledAwaiting(t, facts, needs))) next.add(t.to);
    }
  }
  // Only what the decision ran counts: the explanation below cannot change a refusal.
  const unfinished = facts.unfinished;
  if (next.size > 0) {
    if (unfinished !== undefined) throw unfinishedError(unfinished);
    return { next: [...next].sort((a, b) => a - b), candidates: [] };
  }
  const candidates: Candidate[] = [];
  const explaining: Explaining = { left: EXPLANATION_EVALUATIONS, cutShort: false, noRunner: false };
  for (const s of current) {
    for (let i = lts.succStart[s]!; i < lts.succStart[s + 1]!; i++) {
      if (++judged % TRANSITIONS_PER_TICK === 0) await facts.tick?.();
      const t = lts.transitions[lts.succEdge[i]!]!;
      candidates.push({
        from: lts.displayNames[t.from]!,
        to: lts.displayNames[t.to]!,
        label: labelText(t.label),
        failed: await judge(t, facts, needs, explaining),
      });
    }
  }
  candidates.sort((a, b) => a.failed.length - b.failed.length);
  return {
    next: [],
    candidates,
    ...(explaining.cutShort ? { cutShort: true as const } : {}),
    ...(explaining.noRunner ? { noRunner: true as const } : {}),
    ...(unfinished !== undefined ? { unfinished } : {}),
  };
}
