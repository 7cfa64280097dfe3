/**
 * A compiled model as Graphviz DOT and Mermaid text, for `model graph` and the hub's state
 * views. Node ids are `s<index>` so state names never need escaping as identifiers.
 */
import type { Property } from "./ast.js";
import type { Lts } from "./Lts.js";

export interface GraphOptions {
  /** States to highlight (typically the contract's current states). */
  highlight?: Iterable<number>;
}

const BARE_ARGUMENT = /^(\/[A-Za-z0-9_.\-/]+|[A-Za-z_][A-Za-z0-9_]*|[0-9]+)$/;

/** A property as source text: `+NAME`, `-signed_by(/users/a.id)`, `+post_to(/x.text, "a b")`. */
export function propertyText(p: Property): string {
  const args =
    p.args === null ? "" : `(${p.args.map((a) => (BARE_ARGUMENT.test(a) ? a : JSON.stringify(a))).join(", ")})`;
  return `${p.sign}${p.name}${args}`;
}

/** A label list as source text, properties separated by spaces; "" for an unlabeled transition. */
export function labelText(label: readonly Property[]): string {
  return label.map(propertyText).join(" ");
}

/** Graphviz DOT: one cluster per part when there are several; initial states bold, highlighted states filled. */
export function toDot(lts: Lts, opts: GraphOptions = {}): string {
  const highlight = new Set(opts.highlight ?? []);
  const initial = new Set(lts.initialStates);
  const q = (text: string) => JSON.stringify(text);
  const lines = [`digraph ${q(lts.name)} {`, "  rankdir=LR;", "  node [shape=circle];"];
  const clustered = lts.parts.length > 1;
  lts.parts.forEach((part, p) => {
    const indent = clustered ? "    " : "  ";
    if (clustered) lines.push(`  subgraph ${q(`cluster_${part}`)} {`, `    label=${q(part)};`);
    for (let s = 0; s < lts.stateCount; s++) {
      if (lts.statePart[s] !== p) continue;
      const attrs = [`label=${q(lts.stateNames[s]!)}`];
      if (initial.has(s)) attrs.push("penwidth=2");
      if (highlight.has(s)) attrs.push("style=filled", 'fillcolor="#ffd966"');
      lines.push(`${indent}s${s} [${attrs.join(", ")}];`);
    }
    if (clustered) lines.push("  }");
  });
  for (const t of lts.transitions) {
    const label = labelText(t.label);
    lines.push(`  s${t.from} -> s${t.to}${label ? ` [label=${q(label)}]` : ""};`);
  }
  lines.push("}");
  return lines.join("\n");
}

/** Mermaid state diagram: `[*]` points at each part's initial state; highlighted states get a class. */
export function toMermaid(lts: Lts, opts: GraphOptions = {}): string {
  const highlight = [...new Set(opts.highlight ?? [])];
  // Mermaid has no escape for quotes in state descriptions; #quot; is its entity syntax.
  const text = (s: string) => s.replace(/"/g, "#quot;").replace(/;/g, "#59;");
  const lines = ["stateDiagram-v2"];
  for (let s = 0; s < lts.stateCount; s++) lines.push(`  state "${text(lts.displayNames[s]!)}" as s${s}`);
  for (const s of lts.initialStates) lines.push(`  [*] --> s${s}`);
  for (const t of lts.transitions) {
    const label = labelText(t.label);
    lines.push(`  s${t.from} --> s${t.to}${label ? ` : ${text(label)}` : ""}`);
  }
  if (highlight.length > 0) {
    lines.push("  classDef current fill:#ffd966,stroke:#333");
    lines.push(`  class ${highlight.map((s) => `s${s}`).join(",")} current`);
  }
  return lines.join("\n");
}
