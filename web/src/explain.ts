/**
 * A rejected commit's error, read for people: the states the contract was in, each transition
 * the hub tried and which of its properties stopped it, or the rule that would break and the
 * counterexample path. Accepts a REST error body, a JSON-RPC error, or bare `details`, and says
 * which states and edges of the diagram the explanation is about.
 */
import { gasNote } from "./customPredicates.js";
import { h } from "./dom.js";
import type { ModelView } from "./modelView.js";

interface Failed {
  property: string;
  kind: string;
  errors?: string[];
  gas_used?: number;
}
interface Candidate {
  from: string;
  to: string;
  label: string;
  failed: Failed[];
}
interface Details {
  reason?: string;
  current_states?: string[];
  candidates?: Candidate[];
  rule?: string;
  formula?: string;
  anchor_state?: string;
  counterexample?: { kind?: string; path?: string[]; transitions?: string[]; reachable?: string[] };
  [k: string]: unknown;
}

export interface Explanation {
  code: string;
  message: string;
  details: Details;
}

/** Reads an error in any of the shapes the hub answers with; throws for text that is none of them. */
export function readExplanation(text: string): Explanation {
  const v = JSON.parse(text) as Record<string, unknown>;
  if (v === null || typeof v !== "object") throw new Error("Expected a JSON object");
  // JSON-RPC: {error: {code, message, data: {code, details}}} (or the error object itself).
  const rpc = (v.error && typeof v.error === "object" ? v.error : v) as Record<string, unknown>;
  if (rpc.data && typeof rpc.data === "object") {
    const data = rpc.data as { code?: string; details?: Details };
    return { code: data.code ?? String(rpc.code), message: String(rpc.message ?? ""), details: data.details ?? {} };
  }
  if (typeof v.error === "string") {
    return { code: String(v.code ?? ""), message: v.error, details: (v.details ?? {}) as Details };
  }
  if (v.details && typeof v.details === "object") {
    return { code: String(v.code ?? ""), message: String(v.message ?? ""), details: v.details as Details };
  }
  return { code: "", message: "", details: v as Details };
}

const KIND_TEXT: Readonly<Record<string, string>> = {
  missing: "required, but not satisfied by the commit",
  forbidden: "present, but the transition forbids it",
  needs_label: "the commit carries this action, and this transition does not",
  needs_modifies: "the commit writes this path, and this transition does not allow it",
  not_evaluated: "not evaluated: the hub cut the explanation short",
};

/** What stopped a property, in words; `not_evaluated` says why (`wasm_disabled`: the hub runs no custom predicates). */
function kindText(kind: string, d: Details): string {
  if (kind === "not_evaluated" && d.wasm_disabled === true)
    return "not evaluated: the hub does not run custom predicates";
  return KIND_TEXT[kind] ?? kind;
}

/** The diagram marks an explanation implies: counterexample states and edges, and the transitions tried. */
export function explanationMarks(
  view: ModelView,
  ex: Explanation,
): { states: number[]; edges: number[]; tried: number[] } {
  const idx = (name: string) => view.names.indexOf(name);
  const d = ex.details;
  const states = new Set<number>();
  const edges = new Set<number>();
  const tried = new Set<number>();
  for (const c of d.candidates ?? []) {
    const e = view.edges.find((x) => view.names[x.from] === c.from && view.names[x.to] === c.to && x.label === c.label);
    if (e) tried.add(e.index);
  }
  for (const s of d.current_states ?? []) if (idx(s) >= 0) states.add(idx(s));
  const path = d.counterexample?.path ?? [];
  path.forEach((name, i) => {
    if (idx(name) >= 0) states.add(idx(name));
    if (i === 0) return;
    const label = d.counterexample?.transitions?.[i - 1];
    const e = view.edges.find(
      (x) =>
        view.names[x.from] === path[i - 1] && view.names[x.to] === name && (label === undefined || x.label === label),
    );
    if (e) edges.add(e.index);
  });
  if (d.anchor_state && idx(d.anchor_state) >= 0) states.add(idx(d.anchor_state));
  return { states: [...states], edges: [...edges], tried: [...tried] };
}

/** The explanation as HTML. */
export function renderExplanation(ex: Explanation): HTMLElement {
  const d = ex.details;
  const parts: (HTMLElement | null)[] = [
    h("p", { class: "explain-head" }, ex.code ? h("span", { class: "badge bad" }, ex.code) : null, " ", ex.message),
  ];
  if (d.current_states) {
    const names = d.current_states.flatMap((s, i) => [i === 0 ? "" : ", ", h("b", {}, s)]);
    parts.push(h("p", {}, "The contract was in ", ...names, "."));
  }
  if (d.candidates) {
    parts.push(
      d.candidates.length === 0
        ? h("p", {}, "No transition leaves the current state.")
        : h(
            "ol",
            { class: "candidates" },
            ...d.candidates.map((c) =>
              h(
                "li",
                { "data-candidate": `${c.from}>${c.to}` },
                h("b", {}, `${c.from} → ${c.to}`),
                " ",
                h("code", {}, c.label || "(no label)"),
                h(
                  "ul",
                  {},
                  ...c.failed.map((f) =>
                    h(
                      "li",
                      { class: "failed" },
                      h("code", {}, f.property),
                      `: ${kindText(f.kind, d)}`,
                      f.errors?.length ? ` (${f.errors.join("; ")})` : "",
                      gasNote(f),
                    ),
                  ),
                ),
              ),
            ),
          ),
    );
  }
  if (d.rule || d.formula) {
    parts.push(
      h(
        "p",
        {},
        "Rule ",
        h("b", {}, d.rule ?? ""),
        d.formula ? h("code", { class: "formula" }, d.formula) : null,
        d.anchor_state ? " fails at state " : null,
        d.anchor_state ? h("b", {}, d.anchor_state) : null,
      ),
    );
  }
  const c = d.counterexample;
  if (c?.path) {
    parts.push(
      h(
        "p",
        { class: "cx-path" },
        c.kind === "unreachable" ? "From here the goal is unreachable: " : "Counterexample: ",
        c.path.join(" → "),
        c.reachable ? ` (reachable: ${c.reachable.join(", ")})` : "",
      ),
    );
  }
  if (!d.candidates && !c && !d.rule) {
    parts.push(h("pre", { class: "json" }, JSON.stringify(d, null, 2)));
  }
  return h("div", { class: "explanation" }, ...parts);
}
