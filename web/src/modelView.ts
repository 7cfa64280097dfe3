/**
 * A model's text turned into what the diagram draws, with the hub's own parser, compiler and
 * checker (src/lang is free of Node APIs but for one Buffer call, see bufferShim.ts), so the
 * explorer never disagrees with the hub about states, transitions or whether a formula holds.
 */
import type { Property } from "../../src/lang/ast.js";
import { checkAt } from "../../src/lang/check.js";
import { compileModel, type Lts } from "../../src/lang/Lts.js";
import { parseModel, parseRule } from "../../src/lang/parser.js";
import { printFormula, printProperty } from "../../src/lang/printer.js";

export interface EdgeView {
  index: number;
  from: number;
  to: number;
  /** The label as the hub prints it (matches ValidAction.label). */
  label: string;
  /** Action names on the label (`+DEPOSIT`). */
  actions: string[];
  /** Paths of `signed_by`/`threshold`/… arguments: whose signature the transition needs. */
  signers: string[];
}

export interface ModelView {
  lts: Lts;
  names: readonly string[];
  initial: readonly number[];
  edges: EdgeView[];
}

const SIGNER_ARG: Readonly<Record<string, number>> = { signed_by: 0, threshold: 1, any_signed: 0, all_signed: 0 };
const METHOD_NAMES = new Set(["POST", "RULE", "MODEL", "REPOST", "ACTION", "CREATE", "SEND", "RECV", "GENESIS"]);

function isAction(p: Property): boolean {
  return p.sign === "+" && p.args === null && /^[A-Z][A-Z0-9_]*$/.test(p.name) && !METHOD_NAMES.has(p.name);
}

/** Parses and compiles model text; throws the parser's or compiler's error for text the hub would refuse. */
export function modelView(text: string): ModelView {
  const lts = compileModel(parseModel(text));
  const edges = lts.transitions.map((t) => ({
    index: t.index,
    from: t.from,
    to: t.to,
    label: t.label.map(printProperty).join(" "),
    actions: t.label.filter(isAction).map((p) => p.name),
    signers: t.label.flatMap((p) => {
      const i = SIGNER_ARG[p.name];
      return p.sign === "+" && i !== undefined && p.args?.[i] !== undefined ? [p.args[i]!] : [];
    }),
  }));
  return { lts, names: lts.displayNames, initial: lts.initialStates, edges };
}

/** State indices of display names (unknown names are dropped). */
export function statesNamed(view: ModelView, names: readonly string[]): number[] {
  return names.map((n) => view.names.indexOf(n)).filter((i) => i >= 0);
}

/** `/users/buyer.id` → `buyer`: how a signer reads on an edge. */
export function signerName(path: string): string {
  const last = path.split("/").filter(Boolean).pop() ?? path;
  return last.replace(/\.id$/, "");
}

export interface RuleView {
  text: string;
  name: string | null;
  formula: string;
  /** `$PARENT` (the commit before the rule) or a commit hash. */
  anchor: string;
  /** Whether the formula holds at `at` (null when it cannot be checked). */
  holds: boolean | null;
  /** Why not: the counterexample's states and transition labels. */
  counterexample?: { kind: string; path: string[]; transitions: string[]; reachable?: string[] };
  error?: string;
}

/** Checks a rule's formula at the given states with the hub's checker. */
export function ruleView(view: ModelView | null, text: string, at: readonly number[]): RuleView {
  let decl: ReturnType<typeof parseRule>;
  try {
    decl = parseRule(text);
  } catch (err) {
    return { text, name: null, formula: text, anchor: "", holds: null, error: (err as Error).message };
  }
  const base = {
    text,
    name: decl.name,
    formula: printFormula(decl.formula),
    anchor: decl.startingAt ?? "$PARENT",
  };
  if (view === null || at.length === 0) return { ...base, holds: null };
  try {
    const result = checkAt(view.lts, decl.formula, at);
    if (result.holds) return { ...base, holds: true };
    const c = result.failing?.counterexample;
    return {
      ...base,
      holds: false,
      ...(c
        ? {
            counterexample: {
              kind: c.kind,
              path: c.path.map((s) => view.names[s]!),
              transitions: c.transitions.map((t) => view.edges[t]!.label),
              ...(c.reachable ? { reachable: c.reachable.map((s) => view.names[s]!) } : {}),
            },
          }
        : {}),
    };
  } catch (err) {
    return { ...base, holds: null, error: (err as Error).message };
  }
}
