/**
 * Why a formula fails at a state (docs/language.md: a rule failure returns the failed anchor
 * state and, for always/eventually, the path to the violating or missing state). The
 * explanation follows the formula's outer structure through `&`, `->`, `[L]` and `always`,
 * extending one path, and ends at a state, or with the reachable set for eventually/until.
 */
import type { Formula } from "./ast.js";
import { DEFAULT_BUDGET, type EvalOptions, evaluate, type StateSet, stateSetToList } from "./evaluate.js";
import type { Lts } from "./Lts.js";
import { canonicalLabel, matchingEdges } from "./labelMatches.js";

/** Evidence that a formula fails at `state`. */
export interface Counterexample {
  /**
   * "state": the formula fails at the end of `path` for a local reason; "path": `path` leads
   * to a state violating an `always`/`[L]` body; "unreachable": from the end of `path` the
   * target of an `eventually`/`until` is unreachable, `reachable` lists what is reachable.
   */
  kind: "state" | "path" | "unreachable";
  /** The anchor state where the formula fails (= path[0]). */
  state: number;
  /** States from `state` to the violating state (last); just [state] when nothing is walked. */
  path: number[];
  /** Transition indices taken along `path` (path.length - 1 of them). */
  transitions: number[];
  /** For "unreachable": the states reachable from the end of the path (none satisfies the target). */
  reachable?: number[];
}

/**
 * Explains why `formula` fails at `state`; the caller has established that it fails.
 * `opts.budget` bounds the whole explanation: each step re-evaluates a subformula, and a
 * deep nesting (`always(always(…))`) would otherwise redo a costly body once per level.
 */
export function explainFailure(lts: Lts, formula: Formula, state: number, opts: EvalOptions = {}): Counterexample {
  const path = [state];
  const transitions: number[] = [];
  const budget = opts.budget ?? DEFAULT_BUDGET;
  const spent = { visits: 0 };
  const sat = (f: Formula): StateSet => evaluate(lts, f, { ...opts, budget: budget - spent.visits, meter: spent });
  let f = formula;
  let s = state;
  const done = (kind: Counterexample["kind"], reachable?: number[]): Counterexample =>
    reachable ? { kind, state, path, transitions, reachable } : { kind, state, path, transitions };
  for (;;) {
    switch (f.kind) {
      case "and":
        f = sat(f.left)[s] ? f.right : f.left;
        continue;
      case "implies":
        f = f.right;
        continue;
      case "box": {
        const target = sat(f.arg);
        const mask = f.label.length === 0 ? null : matchingEdges(lts, canonicalLabel(f.label));
        const edge = outgoing(lts, s).find((e) => (mask === null || mask[e]) && !target[lts.edgeTo[e]!]);
        if (edge === undefined) return done(path.length > 1 ? "path" : "state");
        s = step(lts, edge, path, transitions);
        f = f.arg;
        continue;
      }
      case "always": {
        const good = sat(f.arg);
        for (const edge of shortestPath(
          lts,
          s,
          (t) => !good[t],
          () => true,
        ))
          s = step(lts, edge, path, transitions);
        f = f.arg;
        continue;
      }
      case "eventually":
        return done(
          "unreachable",
          reachableFrom(lts, s, () => true),
        );
      case "until": {
        const through = sat(f.left);
        return done(
          "unreachable",
          reachableFrom(lts, s, (t) => through[t] === 1),
        );
      }
      default:
        return done(path.length > 1 ? "path" : "state");
    }
  }
}

function outgoing(lts: Lts, s: number): number[] {
  return Array.from(lts.succEdge.subarray(lts.succStart[s]!, lts.succStart[s + 1]!));
}

function step(lts: Lts, edge: number, path: number[], transitions: number[]): number {
  const to = lts.edgeTo[edge]!;
  path.push(to);
  transitions.push(edge);
  return to;
}

/** Transitions of a shortest path from `from` to a state satisfying `goal`, expanding only states passing `expand`. */
function shortestPath(lts: Lts, from: number, goal: (s: number) => boolean, expand: (s: number) => boolean): number[] {
  if (goal(from)) return [];
  const via = new Int32Array(lts.stateCount).fill(-1);
  const seen = new Uint8Array(lts.stateCount);
  seen[from] = 1;
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const s = queue[head]!;
    if (!expand(s)) continue;
    for (const e of outgoing(lts, s)) {
      const t = lts.edgeTo[e]!;
      if (seen[t]) continue;
      seen[t] = 1;
      via[t] = e;
      if (goal(t)) {
        const edges: number[] = [];
        for (let u = t; u !== from; u = lts.edgeFrom[via[u]!]!) edges.push(via[u]!);
        return edges.reverse();
      }
      queue.push(t);
    }
  }
  return [];
}

/** States reachable from `from` (itself included), continuing only from states passing `expand`. */
function reachableFrom(lts: Lts, from: number, expand: (s: number) => boolean): number[] {
  const seen = new Uint8Array(lts.stateCount);
  seen[from] = 1;
  const queue = [from];
  for (let head = 0; head < queue.length; head++) {
    const s = queue[head]!;
    if (!expand(s)) continue;
    for (const e of outgoing(lts, s)) {
      const t = lts.edgeTo[e]!;
      if (!seen[t]) {
        seen[t] = 1;
        queue.push(t);
      }
    }
  }
  return stateSetToList(seen);
}
