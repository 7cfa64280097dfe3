/**
 * Our syntax tree in the reference implementation's printed form (the strings in
 * ../shared/conformance/language/*.json), so conformance results compare as plain data.
 */
import type { Formula, ModelDecl, Property, Transition } from "../src/lang/ast.js";

export interface ReferenceModel {
  name: string;
  initial: string | null;
  parts: Array<{ name: string; transitions: string[] }>;
  direct_transitions: string[];
}

function refProperty(p: Property): string {
  return p.args === null
    ? `${p.sign}${p.name}`
    : `${p.sign}${p.name}(${p.args.map((a) => JSON.stringify(a)).join(", ")})`;
}

function refLabel(label: readonly Property[]): string {
  return `[${label.map(refProperty).join(" ")}]`;
}

/** `q0 -> q1 [+post_to("/order/status.text", "pending")]`, whatever arrow was written. */
export function refTransition(t: Transition): string {
  return `${t.from} -> ${t.to} ${refLabel(t.label)}`;
}

/** The reference's model record. */
export function refModel(m: ModelDecl): ReferenceModel {
  return {
    name: m.name,
    initial: m.initial,
    parts: m.parts.map((p) => ({ name: p.name, transitions: p.transitions.map(refTransition) })),
    direct_transitions: m.transitions.map(refTransition),
  };
}

const CALL: Record<string, string> = {
  not: "Not",
  and: "And",
  or: "Or",
  implies: "Implies",
  until: "Until",
  always: "Always",
  eventually: "Eventually",
  next: "Next",
  diamond: "Diamond",
  box: "Box",
  diamondbox: "DiamondBox",
  lfp: "Lfp",
  gfp: "Gfp",
};

/** `And(Not(Prop(a)), Prop(b))`: the reference's formula debug form, without its Paren nodes. */
export function refFormula(f: Formula): string {
  switch (f.kind) {
    case "true":
      return "True";
    case "false":
      return "False";
    case "ident":
      return `Prop(${f.name})`;
    case "not":
    case "always":
    case "eventually":
    case "next":
      return `${CALL[f.kind]}(${refFormula(f.arg)})`;
    case "and":
    case "or":
    case "implies":
    case "until":
      return `${CALL[f.kind]}(${refFormula(f.left)}, ${refFormula(f.right)})`;
    case "diamond":
    case "box":
    case "diamondbox":
      return `${CALL[f.kind]}(${refLabel(f.label)}, ${refFormula(f.arg)})`;
    case "lfp":
    case "gfp":
      return `${CALL[f.kind]}(${f.variable}, ${refFormula(f.body)})`;
  }
}

/** Removes the reference's `Paren(…)` wrappers (our tree has no parenthesis node). */
export function withoutParen(ast: string): string {
  let out = "";
  const stack: boolean[] = [];
  let inString = false;
  for (let i = 0; i < ast.length; i++) {
    const ch = ast[i]!;
    if (inString) {
      out += ch;
      if (ch === "\\") out += ast[++i] ?? "";
      else if (ch === '"') inString = false;
    } else if (ch === '"') {
      inString = true;
      out += ch;
    } else if (ch === "(") {
      const isParen = /(^|[^A-Za-z])Paren$/.test(out);
      if (isParen) out = out.slice(0, -"Paren".length);
      else out += ch;
      stack.push(isParen);
    } else if (ch === ")") {
      if (!stack.pop()) out += ch;
    } else {
      out += ch;
    }
  }
  return out;
}
