import type { ModelDecl, Property, Transition } from "../lang/ast.js";
import { modelTransitions } from "../lang/modelTransitions.js";
import { parseModel } from "../lang/parser.js";
import { printModel } from "../lang/printer.js";

/** Predicates whose first argument names state they read a term from (a quorum, a deadline, a hash). */
const READS_FIRST = new Set(["any_signed", "all_signed", "before", "after", "hash_matches"]);

/** True when one path is the other or lies under it on a `/` boundary. */
function overlaps(a: string, b: string): boolean {
  const under = (dir: string, p: string) => p === dir || p.startsWith(`${dir.replace(/\/$/, "")}/`);
  return under(a, b) || under(b, a);
}

/**
 * The paths a model's predicates read a term from: `threshold`, `any_signed` and
 * `all_signed` directories (or key lists), `before`/`after` dates, `hash_matches` hashes.
 * Keys at `.id` paths (`signed_by`, `oracle_attests`) are left out: the hub refuses to
 * overwrite one unless a transition carries `+modifies` of it.
 */
export function readTermPaths(m: ModelDecl): string[] {
  const out = new Set<string>();
  for (const t of modelTransitions(m)) {
    for (const p of t.label) {
      if (p.args === null) continue;
      const path = p.name === "threshold" ? p.args[1] : READS_FIRST.has(p.name) ? p.args[0] : undefined;
      if (path?.startsWith("/")) out.add(path);
    }
  }
  return [...out];
}

/** `paths` without those under another of them: `-modifies` of a directory covers what lies in it. */
function outermost(paths: readonly string[]): string[] {
  const all = new Set(paths.map((p) => p.replace(/\/$/, "")));
  return paths.filter((p) => {
    const parts = p.replace(/\/$/, "").split("/");
    for (let i = 1; i < parts.length - 1; i++) if (all.has(parts.slice(0, i + 1).join("/"))) return false;
    return true;
  });
}

/** The paths a transition already says whether it writes (`+modifies` of one moves it on purpose). */
function modifiedPaths(t: Transition): string[] {
  return t.label.flatMap((p) => (p.name === "modifies" && p.args?.[0] !== undefined ? [p.args[0]] : []));
}

/** An outcome's unlabeled self-loop (the state's only way out): no predicate is read past it. */
function terminalLoop(t: Transition, siblings: readonly Transition[]): boolean {
  return t.label.length === 0 && t.from === t.to && siblings.every((s) => s.from !== t.from || s === t);
}

export interface FixedTerms {
  /** The model text: the input unchanged when nothing was added, else the printed model. */
  model: string;
  /** Each path that got `-modifies`, with how many transitions it was added to. */
  added: Array<{ path: string; transitions: number }>;
  /**
   * Set (and nothing added) when the fixed model would pass `maxBytes`: every step gets one
   * label per path read, so a model reading a term of its own on each of n steps grows by n²
   * labels, which no hub could store.
   */
  tooLarge?: true;
}

/** Comparisons of a step's labels with the paths read, past which the model is too large anyway. */
const MAX_COMPARISONS = 2_000_000;

/**
 * A commit may post alongside its action, including to what the model's predicates read: a
 * party who added a key of its own under a quorum's directory could meet it alone, one who
 * moved a deadline could refund or reclaim at once, one who replaced a hash could reveal a
 * preimage of its own. So every transition that does not itself say whether it writes such a
 * path gets `-modifies(<path>)` (the step meant to move it, a renewal, carries `+modifies`).
 * For a language model's answer; the pattern synthesizer writes these itself (Draft.model).
 */
export function fixReadTerms(text: string, maxBytes = Number.POSITIVE_INFINITY): FixedTerms {
  const m = parseModel(text);
  const paths = outermost(readTermPaths(m));
  const added = new Map<string, number>();
  const groups = [m.transitions, ...m.parts.map((p) => p.transitions)];
  const tooLarge: FixedTerms = { model: text, added: [], tooLarge: true };
  // Bytes the added labels print as (` -modifies(<path>)`), counted as they are added so a
  // hostile answer stops here rather than after building a model of gigabytes.
  let bytes = text.length;
  let comparisons = 0;
  for (const group of groups) {
    for (const t of group) {
      if (terminalLoop(t, group)) continue;
      // The step's own labels, read once (scanning its growing label for every path cost n³
      // on n paths); the paths are disjoint, so a label added here covers no other path.
      const modified = modifiedPaths(t);
      for (const path of paths) {
        comparisons += 1 + modified.length;
        if (comparisons > MAX_COMPARISONS) return tooLarge;
        if (modified.some((p) => overlaps(p, path))) continue;
        const fixed: Property = { sign: "-", name: "modifies", args: [path] };
        t.label.push(fixed);
        added.set(path, (added.get(path) ?? 0) + 1);
        bytes += path.length + 12;
        if (bytes > maxBytes) return tooLarge;
      }
    }
  }
  if (added.size === 0) return { model: text, added: [] };
  const model = printModel(m);
  if (model.length > maxBytes) return tooLarge;
  return { model, added: [...added].map(([path, transitions]) => ({ path, transitions })) };
}
