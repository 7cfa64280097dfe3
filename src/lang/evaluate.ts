/**
 * Set-based evaluation of formulas over a compiled model (docs/language.md).
 *
 * A state set is a Uint8Array over dense state indices (1 = member) and is never mutated once
 * returned, so sets can be shared between the environment, caches and results. Temporal
 * operators and modalities use predecessor worklists (O(states + transitions)); general fixed
 * points iterate, starting from a previous approximation whenever the variables it depends
 * on moved in the direction that keeps it below (lfp) or above (gfp) the new fixed point —
 * Emerson–Lei reuse, so alternation-free nestings stay polynomial.
 */
import type { Formula, Property } from "./ast.js";
import { BudgetExceededError } from "./checkErrors.js";
import { children } from "./children.js";
import type { Lts } from "./Lts.js";
import { canonicalLabel, flipLabel, matchingEdges } from "./labelMatches.js";
import { checkMonotone } from "./monotonicity.js";

export { BudgetExceededError } from "./checkErrors.js";

/** Membership array over the model's states: `set[s] === 1` when state s is in the set. */
export type StateSet = Uint8Array;

/** docs/language.md: every check runs under a budget of state visits. */
export const DEFAULT_BUDGET = 100_000_000;

export interface EvalOptions {
  /** Maximum number of state and transition visits; default 10^8. */
  budget?: number;
  /**
   * "naive" evaluates always/eventually/until/next by their fixed-point definitions with plain
   * Kleene iteration and no reuse: the reference the worklist algorithms are tested against.
   */
  strategy?: "worklist" | "naive";
  /** Receives the visits this evaluation made (added to `visits`), so a caller can sum a budget over several checks. */
  meter?: { visits: number };
}

/** Returns the set of states where the formula holds; throws MonotonicityError, FormulaError, BudgetExceededError. */
export function evaluate(lts: Lts, formula: Formula, opts: EvalOptions = {}): StateSet {
  checkMonotone(formula);
  const naive = opts.strategy === "naive";
  const f = naive ? desugarTemporal(formula, { next: 0 }) : formula;
  const evaluator = new Evaluator(lts, opts.budget ?? DEFAULT_BUDGET, naive);
  try {
    return evaluator.eval(f, new Map());
  } finally {
    if (opts.meter) opts.meter.visits += evaluator.visitCount;
  }
}

/** Indices of the members of a set, ascending. */
export function stateSetToList(set: StateSet): number[] {
  const list: number[] = [];
  for (let s = 0; s < set.length; s++) if (set[s]) list.push(s);
  return list;
}

/** A set over `n` states holding the given states. */
export function stateSetOf(n: number, states: Iterable<number>): StateSet {
  const set = new Uint8Array(n);
  for (const s of states) set[s] = 1;
  return set;
}

type Env = ReadonlyMap<string, StateSet>;

interface Approximation {
  value: StateSet;
  /** Values of the fixed point's free variables when `value` was computed. */
  env: Map<string, StateSet>;
}

class Evaluator {
  private readonly n: number;
  private visits = 0;
  private readonly free = new Map<Formula, ReadonlySet<string>>();
  private readonly closed = new Map<Formula, StateSet>();
  private readonly approximations = new Map<Formula, Approximation>();
  private readonly polarities = new Map<Formula, Map<string, boolean>>();
  private readonly labels = new Map<Formula, { label: Property[]; mask: Uint8Array | null }>();
  private readonly masks = new Map<string, Uint8Array | null>();
  private readonly all: StateSet;
  private readonly none: StateSet;

  constructor(
    private readonly lts: Lts,
    private readonly budget: number,
    private readonly naive: boolean,
  ) {
    this.n = lts.stateCount;
    this.all = new Uint8Array(this.n).fill(1);
    this.none = new Uint8Array(this.n);
  }

  eval(f: Formula, env: Env): StateSet {
    const isClosed = !this.naive && this.isClosed(f, env);
    if (isClosed) {
      const cached = this.closed.get(f);
      if (cached) return cached;
    }
    const result = this.compute(f, env);
    if (isClosed) this.closed.set(f, result);
    return result;
  }

  private compute(f: Formula, env: Env): StateSet {
    switch (f.kind) {
      case "true":
        return this.all;
      case "false":
        return this.none;
      case "ident":
        return env.get(f.name) ?? this.named(f.name);
      case "not":
        return this.map1(this.eval(f.arg, env), (a) => a ^ 1);
      case "and":
        return this.map2(this.eval(f.left, env), this.eval(f.right, env), (a, b) => a & b);
      case "or":
        return this.map2(this.eval(f.left, env), this.eval(f.right, env), (a, b) => a | b);
      case "implies":
        return this.map2(this.eval(f.left, env), this.eval(f.right, env), (a, b) => (a ^ 1) | b);
      case "diamond":
        return this.diamond(this.mask(f), this.eval(f.arg, env));
      case "box":
        return this.box(this.mask(f), this.eval(f.arg, env));
      case "diamondbox":
        return this.diamondBox(f, this.eval(f.arg, env));
      case "next":
        return this.diamond(null, this.eval(f.arg, env));
      case "eventually":
        return this.until(this.all, this.eval(f.arg, env));
      case "until":
        return this.until(this.eval(f.left, env), this.eval(f.right, env));
      case "always": {
        // AG f = ¬EF¬f: one backward search from the violating states.
        const bad = this.until(
          this.all,
          this.map1(this.eval(f.arg, env), (a) => a ^ 1),
        );
        return this.map1(bad, (a) => a ^ 1);
      }
      case "lfp":
      case "gfp":
        return this.fixpoint(f, env);
    }
  }

  get visitCount(): number {
    return this.visits;
  }

  private charge(visits: number): void {
    this.visits += visits;
    if (this.visits > this.budget) throw new BudgetExceededError(this.budget);
  }

  private named(name: string): StateSet {
    const set = new Uint8Array(this.n);
    for (const s of this.lts.statesByName.get(name) ?? []) set[s] = 1;
    return set;
  }

  private map1(a: StateSet, op: (x: number) => number): StateSet {
    this.charge(this.n);
    const r = new Uint8Array(this.n);
    for (let s = 0; s < this.n; s++) r[s] = op(a[s]!);
    return r;
  }

  private map2(a: StateSet, b: StateSet, op: (x: number, y: number) => number): StateSet {
    this.charge(this.n);
    const r = new Uint8Array(this.n);
    for (let s = 0; s < this.n; s++) r[s] = op(a[s]!, b[s]!);
    return r;
  }

  /** Edge mask of a modal node's label; null when the label is empty (every transition matches). */
  private mask(f: Formula & { label: Property[] }, flip = false): Uint8Array | null {
    let entry = this.labels.get(f);
    if (!entry) {
      entry = { label: canonicalLabel(f.label), mask: null };
      this.labels.set(f, entry);
    }
    const label = flip ? flipLabel(entry.label) : entry.label;
    if (label.length === 0) return null;
    const key = label.map((p) => `${p.sign}${p.name}${p.args === null ? "" : JSON.stringify(p.args)}`).join(" ");
    let mask = this.masks.get(key);
    if (mask === undefined) {
      this.charge(this.lts.transitionCount);
      mask = matchingEdges(this.lts, label);
      this.masks.set(key, mask);
    }
    return mask;
  }

  /** States with a matching transition into `target`. */
  private diamond(mask: Uint8Array | null, target: StateSet): StateSet {
    const { predStart, predEdge, edgeFrom } = this.lts;
    this.charge(this.n + this.lts.transitionCount);
    const r = new Uint8Array(this.n);
    for (let s = 0; s < this.n; s++) {
      if (!target[s]) continue;
      for (let i = predStart[s]!; i < predStart[s + 1]!; i++) {
        const e = predEdge[i]!;
        if (mask === null || mask[e]) r[edgeFrom[e]!] = 1;
      }
    }
    return r;
  }

  /** States all of whose matching transitions lead into `target`. */
  private box(mask: Uint8Array | null, target: StateSet): StateSet {
    const { predStart, predEdge, edgeFrom } = this.lts;
    this.charge(this.n + this.lts.transitionCount);
    const r = new Uint8Array(this.n).fill(1);
    for (let s = 0; s < this.n; s++) {
      if (target[s]) continue;
      for (let i = predStart[s]!; i < predStart[s + 1]!; i++) {
        const e = predEdge[i]!;
        if (mask === null || mask[e]) r[edgeFrom[e]!] = 0;
      }
    }
    return r;
  }

  /**
   * `[<L>] f` = `[L̄] false & <L> f`. An empty L cannot be refused, so `[<>] f` = `<> f` as in
   * the reference (the literal expansion would give `[] false & <> f`, which is empty).
   */
  private diamondBox(f: Formula & { label: Property[] }, target: StateSet): StateSet {
    if (f.label.length === 0) return this.diamond(null, target);
    const committed = this.box(this.mask(f, true), this.none);
    const possible = this.diamond(this.mask(f), target);
    return this.map2(committed, possible, (a, b) => a & b);
  }

  /** E[p U q] by a backward worklist from q through p-states; eventually(f) = E[true U f]. */
  private until(p: StateSet, q: StateSet): StateSet {
    const { predStart, predEdge, edgeFrom } = this.lts;
    this.charge(this.n + this.lts.transitionCount);
    const r = Uint8Array.from(q);
    const queue = new Uint32Array(this.n);
    let tail = 0;
    for (let s = 0; s < this.n; s++) if (r[s]) queue[tail++] = s;
    for (let head = 0; head < tail; head++) {
      const s = queue[head]!;
      for (let i = predStart[s]!; i < predStart[s + 1]!; i++) {
        const u = edgeFrom[predEdge[i]!]!;
        if (!r[u] && p[u]) {
          r[u] = 1;
          queue[tail++] = u;
        }
      }
    }
    return r;
  }

  private fixpoint(f: Formula & { kind: "lfp" | "gfp" }, env: Env): StateSet {
    const least = f.kind === "lfp";
    const previous = this.naive ? undefined : this.approximations.get(f);
    let current = previous && this.reusable(f, previous, env) ? previous.value : least ? this.none : this.all;
    for (;;) {
      const next = this.eval(f.body, new Map(env).set(f.variable, current));
      this.charge(this.n);
      if (sameSet(next, current)) break;
      current = next;
    }
    if (!this.naive) {
      const snapshot = new Map<string, StateSet>();
      for (const v of this.freeVars(f)) {
        const value = env.get(v);
        if (value) snapshot.set(v, value);
      }
      this.approximations.set(f, { value: current, env: snapshot });
    }
    return current;
  }

  /**
   * A previous fixed point is a valid start when every free variable moved so that the body
   * can only grow (lfp) or shrink (gfp): then it lies on the right side of the new fixed point.
   */
  private reusable(f: Formula & { kind: "lfp" | "gfp" }, previous: Approximation, env: Env): boolean {
    for (const v of this.freeVars(f)) {
      const now = env.get(v);
      const then = previous.env.get(v);
      if (now === then) continue;
      if (now === undefined || then === undefined) return false;
      this.charge(this.n);
      const [before, after] = this.polarity(f, v) === (f.kind === "lfp") ? [then, now] : [now, then];
      if (!subset(before, after)) return false;
    }
    return true;
  }

  /** Whether `v` occurs in `f` under an even number of negations (uniform in a monotone formula). */
  private polarity(f: Formula, v: string): boolean {
    let byVar = this.polarities.get(f);
    if (!byVar) {
      byVar = new Map();
      this.polarities.set(f, byVar);
    }
    let positive = byVar.get(v);
    if (positive === undefined) {
      positive = occurrenceParity(f, v, 0) !== 1;
      byVar.set(v, positive);
    }
    return positive;
  }

  private isClosed(f: Formula, env: Env): boolean {
    if (env.size === 0) return true;
    for (const v of this.freeVars(f)) if (env.has(v)) return false;
    return true;
  }

  /** Identifiers of `f` not bound inside `f` (variables of enclosing binders or state names). */
  private freeVars(f: Formula): ReadonlySet<string> {
    let vars = this.free.get(f);
    if (vars) return vars;
    const set = new Set<string>();
    if (f.kind === "ident") set.add(f.name);
    const binder = f.kind === "lfp" || f.kind === "gfp" ? f.variable : null;
    for (const c of children(f)) for (const v of this.freeVars(c.formula)) if (v !== binder) set.add(v);
    vars = set;
    this.free.set(f, vars);
    return vars;
  }
}

/** Parity (0 even, 1 odd) of the negations above the first free occurrence of v; -1 if none. */
function occurrenceParity(f: Formula, v: string, negations: number): number {
  if (f.kind === "ident") return f.name === v ? negations % 2 : -1;
  if ((f.kind === "lfp" || f.kind === "gfp") && f.variable === v) return -1;
  for (const c of children(f)) {
    const r = occurrenceParity(c.formula, v, negations + (c.negated ? 1 : 0));
    if (r >= 0) return r;
  }
  return -1;
}

function sameSet(a: StateSet, b: StateSet): boolean {
  return a === b || Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
}

function subset(a: StateSet, b: StateSet): boolean {
  for (let s = 0; s < a.length; s++) if (a[s]! & ~b[s]!) return false;
  return true;
}

/** Rewrites always/eventually/until/next into their docs/language.md definitions with fresh variables. */
export function desugarTemporal(f: Formula, counter: { next: number }): Formula {
  const d = (g: Formula) => desugarTemporal(g, counter);
  // "%" cannot start an identifier, so a fresh variable never captures a state name or user variable.
  const fresh = () => `%${counter.next++}`;
  switch (f.kind) {
    case "true":
    case "false":
    case "ident":
      return f;
    case "not":
      return { kind: "not", arg: d(f.arg) };
    case "and":
    case "or":
    case "implies":
      return { kind: f.kind, left: d(f.left), right: d(f.right) };
    case "diamond":
    case "box":
    case "diamondbox":
      return { kind: f.kind, label: f.label, arg: d(f.arg) };
    case "lfp":
    case "gfp":
      return { kind: f.kind, variable: f.variable, body: d(f.body) };
    case "next":
      return { kind: "diamond", label: [], arg: d(f.arg) };
    case "always": {
      const x = fresh();
      const body: Formula = {
        kind: "and",
        left: { kind: "box", label: [], arg: { kind: "ident", name: x } },
        right: d(f.arg),
      };
      return { kind: "gfp", variable: x, body };
    }
    case "eventually": {
      const x = fresh();
      const step: Formula = { kind: "diamond", label: [], arg: { kind: "ident", name: x } };
      return { kind: "lfp", variable: x, body: { kind: "or", left: step, right: d(f.arg) } };
    }
    case "until": {
      const x = fresh();
      const step: Formula = { kind: "diamond", label: [], arg: { kind: "ident", name: x } };
      const body: Formula = { kind: "or", left: d(f.right), right: { kind: "and", left: d(f.left), right: step } };
      return { kind: "lfp", variable: x, body };
    }
  }
}
