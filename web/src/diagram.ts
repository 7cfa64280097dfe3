/**
 * The state diagram as SVG: laid out by layout.ts, current states filled, valid next actions
 * drawn green with who must sign, and an explanation's path (a counterexample, or the
 * transitions a rejected commit tried) drawn over it. Every mark is also a class and a data
 * attribute, so tests and readers can find them without looking at colours.
 */
import { h, s } from "./dom.js";
import { type LabelBox, layeredLayout, placeLabels, routeEdge, textWidth } from "./layout.js";
import { type EdgeView, type ModelView, signerName } from "./modelView.js";

export interface ValidActionLike {
  action: string;
  to: string;
  label: string;
  required_signers?: string[];
  required_signer?: string;
}

export interface DiagramMarks {
  /** States the contract is in. */
  current?: readonly number[];
  /** Actions the hub says may follow (StateView.valid_actions). */
  valid?: readonly ValidActionLike[];
  /** States and edges of an explanation. */
  path?: { states: readonly number[]; edges: readonly number[]; tried?: readonly number[] };
}

const NODE_H = 34;
/** Characters of a state's name drawn in its box. */
const STATE_NAME_SHOWN = 32;

function shortLabel(e: EdgeView): string {
  const who = e.signers.map(signerName);
  const parts = [e.actions.join(" "), who.length ? `✍ ${who.join(", ")}` : ""].filter(Boolean);
  return parts.join(" · ") || (e.label ? "…" : "");
}

/** The edges that carry a valid action: leaving a current state with the action's label and target. */
export function validEdges(view: ModelView, marks: DiagramMarks): Map<number, ValidActionLike> {
  const current = new Set(marks.current ?? []);
  const out = new Map<number, ValidActionLike>();
  for (const va of marks.valid ?? []) {
    const edge = view.edges.find(
      (e) => current.has(e.from) && view.names[e.to] === va.to && e.label === va.label && !out.has(e.index),
    );
    if (edge) out.set(edge.index, va);
  }
  return out;
}

/**
 * The largest model drawn. Label placement is quadratic in the transitions and the drawing is
 * one row per BFS rank: a model the hub accepts (up to 100,000 states) would hold the
 * visitor's tab for minutes on every redraw (each commit event), and be unreadable when drawn.
 */
export const DIAGRAM_LIMITS = { states: 200, transitions: 500 } as const;

/** The diagram, or for a model over DIAGRAM_LIMITS a line saying how large it is instead. */
export function diagramOrSize(view: ModelView, marks: DiagramMarks = {}): Element {
  const states = view.names.length;
  const transitions = view.edges.length;
  if (states <= DIAGRAM_LIMITS.states && transitions <= DIAGRAM_LIMITS.transitions) return renderDiagram(view, marks);
  return h(
    "p",
    { class: "muted", id: "diagram-too-large", "data-states": states, "data-transitions": transitions },
    `${view.lts.name} has ${states} states and ${transitions} transitions: too many to draw here ` +
      `(at most ${DIAGRAM_LIMITS.states} states and ${DIAGRAM_LIMITS.transitions} transitions are drawn).`,
  );
}

/** Draws the model; `marks` says what to highlight. */
export function renderDiagram(view: ModelView, marks: DiagramMarks = {}): SVGElement {
  // A long state name is cut in its box (the full name is its tooltip and data-state), so one
  // name cannot stretch the whole drawing.
  const shown = view.names.map((n) => (n.length > STATE_NAME_SHOWN ? `${n.slice(0, STATE_NAME_SHOWN - 1)}…` : n));
  const sizes = shown.map((n) => ({ w: Math.max(70, textWidth(n) + 32), h: NODE_H }));
  const layout = layeredLayout({
    sizes,
    edges: view.edges.map((e) => [e.from, e.to] as const),
    roots: view.initial,
  });
  const current = new Set(marks.current ?? []);
  const valid = validEdges(view, marks);
  const pathStates = new Set(marks.path?.states ?? []);
  const pathEdges = new Set(marks.path?.edges ?? []);
  const tried = new Set(marks.path?.tried ?? []);

  // Parallel edges between one pair fan out; count them first.
  const pairKey = (e: EdgeView) => `${e.from}>${e.to}`;
  const pairCount = new Map<string, number>();
  for (const e of view.edges) pairCount.set(pairKey(e), (pairCount.get(pairKey(e)) ?? 0) + 1);
  const seen = new Map<string, number>();

  let minX = 0;
  let maxX = layout.width;
  const edgeEls: SVGElement[] = [];
  const labelEls: SVGElement[] = [];
  const boxes: LabelBox[] = [];
  for (const e of view.edges) {
    const k = seen.get(pairKey(e)) ?? 0;
    seen.set(pairKey(e), k + 1);
    const route = routeEdge(layout, e.from, e.to, k, pairCount.get(pairKey(e))!);
    const va = valid.get(e.index);
    const classes = ["edge"];
    if (va) classes.push("valid");
    if (pathEdges.has(e.index)) classes.push("on-path");
    if (tried.has(e.index)) classes.push("tried");
    const text = va
      ? `▶ ${va.action || e.actions.join(" ")}${signersOf(va).length ? ` · ✍ ${signersOf(va).map(signerName).join(", ")}` : ""}`
      : shortLabel(e);
    const w = textWidth(text, 12);
    const reach = route.anchor === "middle" ? w / 2 : w;
    if (route.anchor !== "start") minX = Math.min(minX, route.labelX - reach - 12);
    if (route.anchor !== "end") maxX = Math.max(maxX, route.labelX + reach + 12);
    const title = s("title", {}, `${view.names[e.from]} → ${view.names[e.to]}${e.label ? ` [${e.label}]` : ""}`);
    edgeEls.push(
      s(
        "path",
        {
          class: classes.join(" "),
          d: route.d,
          "data-edge": e.index,
          "data-from": view.names[e.from]!,
          "data-to": view.names[e.to]!,
          "marker-end": va ? "url(#arrow-valid)" : pathEdges.has(e.index) ? "url(#arrow-path)" : "url(#arrow)",
        },
        title,
      ),
    );
    if (text) {
      boxes.push({ x: route.labelX, y: route.labelY, w: textWidth(text, 12), h: 15, anchor: route.anchor });
      labelEls.push(
        s(
          "text",
          {
            class: `edge-label${va ? " valid" : ""}${pathEdges.has(e.index) ? " on-path" : ""}`,
            x: route.labelX,
            y: route.labelY,
            "text-anchor": route.anchor,
            "data-edge": e.index,
            ...(va ? { "data-signers": signersOf(va).join(" ") } : {}),
          },
          text,
          s("title", {}, e.label || "(no label)"),
        ),
      );
    }
  }

  // Labels of edges that share a gap between rows would overprint each other: move them apart.
  let maxY = layout.height;
  placeLabels(boxes, layout.nodes).forEach((y, i) => {
    labelEls[i]!.setAttribute("y", String(y));
    maxY = Math.max(maxY, y + 8);
  });
  const nodeEls = layout.nodes.map((n, i) => {
    const classes = ["state"];
    if (current.has(i)) classes.push("current");
    if (view.initial.includes(i)) classes.push("initial");
    if (pathStates.has(i)) classes.push("on-path");
    return s(
      "g",
      { class: classes.join(" "), "data-state": view.names[i]!, transform: `translate(${n.x},${n.y})` },
      s("rect", { x: -n.w / 2, y: -n.h / 2, width: n.w, height: n.h, rx: n.h / 2 }),
      s("text", { "text-anchor": "middle", y: 4.5 }, shown[i]!),
      view.initial.includes(i) ? s("path", { class: "entry", d: `M0,${-n.h / 2 - 18} V${-n.h / 2 - 2}` }) : null,
      s(
        "title",
        {},
        `${view.names[i]}${current.has(i) ? " (current)" : ""}${view.initial.includes(i) ? " (initial)" : ""}`,
      ),
    );
  });

  const left = Math.floor(minX);
  const width = Math.ceil(maxX + 16) - left;
  const height = Math.ceil(maxY + 20);
  const marker = (id: string) =>
    s(
      "marker",
      { id, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
      s("path", { d: "M0,0 L10,5 L0,10 z" }),
    );
  return s(
    "svg",
    {
      class: "diagram",
      viewBox: `${left} -20 ${width} ${height + 20}`,
      width,
      height: height + 20,
      role: "img",
      "aria-label": `State diagram of ${view.lts.name}`,
    },
    s("defs", {}, marker("arrow"), marker("arrow-valid"), marker("arrow-path")),
    ...edgeEls,
    ...nodeEls,
    ...labelEls,
  );
}

function signersOf(va: ValidActionLike): string[] {
  return va.required_signers ?? (va.required_signer ? [va.required_signer] : []);
}
