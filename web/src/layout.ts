/**
 * A small layered layout for state diagrams (no DOM, so tests run it in Node): ranks by BFS
 * from the initial states, order within ranks by barycenter sweeps to reduce crossings, rows
 * placed top to bottom and centred. Edges are routed as SVG paths: adjacent-rank edges
 * straight (fanned when parallel), self-loops as loops, back and long edges as curves that
 * leave the rows on the right so they do not cut through nodes.
 */

export interface Size {
  w: number;
  h: number;
}

export interface LayoutInput {
  sizes: readonly Size[];
  /** Directed edges as [from, to] node indices; self-loops and parallel edges allowed. */
  edges: readonly (readonly [number, number])[];
  /** Nodes placed in the first rank (the model's initial states). */
  roots: readonly number[];
}

/** A placed node; (x, y) is its centre. */
export interface PlacedNode extends Size {
  x: number;
  y: number;
  rank: number;
  order: number;
}

export interface Layout {
  nodes: PlacedNode[];
  width: number;
  height: number;
}

export interface LayoutOptions {
  rankGap?: number;
  nodeGap?: number;
  margin?: number;
  sweeps?: number;
}

/** BFS ranks from the roots; nodes the roots do not reach start their own BFS at rank 0, in index order. */
export function bfsRanks(n: number, edges: LayoutInput["edges"], roots: readonly number[]): number[] {
  const out: number[][] = Array.from({ length: n }, () => []);
  for (const [a, b] of edges) if (a !== b) out[a]!.push(b);
  const rank = new Array<number>(n).fill(-1);
  const run = (starts: number[]) => {
    const queue = [...starts];
    for (const r of starts) rank[r] = 0;
    for (let i = 0; i < queue.length; i++) {
      const v = queue[i]!;
      for (const w of out[v]!) {
        if (rank[w] !== -1) continue;
        rank[w] = rank[v]! + 1;
        queue.push(w);
      }
    }
  };
  run([...new Set(roots)].filter((r) => r >= 0 && r < n));
  for (let v = 0; v < n; v++) if (rank[v] === -1) run([v]);
  return rank;
}

/** Orders each rank by the mean position of neighbours in the adjacent rank, sweeping down then up. */
function orderRanks(rows: number[][], rank: number[], edges: LayoutInput["edges"], sweeps: number): void {
  const neighbours: number[][] = rank.map(() => []);
  for (const [a, b] of edges) {
    if (Math.abs(rank[a]! - rank[b]!) !== 1) continue;
    neighbours[a]!.push(b);
    neighbours[b]!.push(a);
  }
  const pos = new Map<number, number>();
  for (const row of rows) row.forEach((v, i) => void pos.set(v, i));
  const reorder = (r: number, from: number) => {
    const row = rows[r]!;
    const centre = new Map<number, number>();
    for (const v of row) {
      const ns = neighbours[v]!.filter((w) => rank[w] === from);
      centre.set(v, ns.length === 0 ? pos.get(v)! : ns.reduce((sum, w) => sum + pos.get(w)!, 0) / ns.length);
    }
    // Stable sort: ties keep the previous order, so the result is deterministic.
    row.sort((a, b) => centre.get(a)! - centre.get(b)!);
    row.forEach((v, i) => void pos.set(v, i));
  };
  for (let s = 0; s < sweeps; s++) {
    for (let r = 1; r < rows.length; r++) reorder(r, r - 1);
    for (let r = rows.length - 2; r >= 0; r--) reorder(r, r + 1);
  }
}

/** Places every node; nodes in one row never overlap (nodeGap apart) and rows are rankGap apart. */
export function layeredLayout(input: LayoutInput, options: LayoutOptions = {}): Layout {
  const { rankGap = 80, nodeGap = 48, margin = 24, sweeps = 4 } = options;
  const n = input.sizes.length;
  const rank = bfsRanks(n, input.edges, input.roots);
  const rows: number[][] = [];
  // Within a rank, start from node index order (the model's source order); the sweeps refine it.
  const byRank = [...Array(n).keys()].sort((a, b) => rank[a]! - rank[b]!);
  for (const v of byRank) (rows[rank[v]!] ??= []).push(v);
  orderRanks(rows, rank, input.edges, sweeps);

  const rowWidth = (row: number[]) =>
    row.reduce((sum, v) => sum + input.sizes[v]!.w, 0) + nodeGap * Math.max(0, row.length - 1);
  const widest = Math.max(0, ...rows.map(rowWidth));
  const nodes: PlacedNode[] = new Array(n);
  let y = margin;
  rows.forEach((row, r) => {
    const rowH = Math.max(0, ...row.map((v) => input.sizes[v]!.h));
    let x = margin + (widest - rowWidth(row)) / 2;
    row.forEach((v, order) => {
      const { w, h } = input.sizes[v]!;
      nodes[v] = { x: x + w / 2, y: y + rowH / 2, w, h, rank: r, order };
      x += w + nodeGap;
    });
    y += rowH + rankGap;
  });
  return { nodes, width: widest + 2 * margin, height: Math.max(0, y - rankGap + margin) };
}

/** An edge as an SVG path and where its label goes. */
export interface Route {
  d: string;
  labelX: number;
  labelY: number;
  /** Text anchor of the label: "end" left of an edge going left, "middle" under a same-row arc, else "start". */
  anchor: "start" | "end" | "middle";
}

type Point = [number, number];

function cubicAt(p0: Point, p1: Point, p2: Point, p3: Point, t: number): Point {
  const u = 1 - t;
  const f = (i: 0 | 1) => u * u * u * p0[i] + 3 * u * u * t * p1[i] + 3 * u * t * t * p2[i] + t * t * t * p3[i];
  return [f(0), f(1)];
}

const fmt = (p: Point) => `${Math.round(p[0] * 10) / 10},${Math.round(p[1] * 10) / 10}`;

/**
 * Routes edge `from → to`; `k` of `count` parallel edges between the same pair fan out.
 * The layout's width does not include the right-side curves; `routesWidth` tells how far they reach.
 */
export function routeEdge(layout: Layout, from: number, to: number, k = 0, count = 1): Route {
  const a = layout.nodes[from]!;
  const b = layout.nodes[to]!;
  const spread = (k - (count - 1) / 2) * 26;
  if (from === to) {
    const x = a.x + a.w / 2;
    const reach = 34 + k * 16;
    const p0: Point = [x, a.y - 7];
    const p3: Point = [x, a.y + 7];
    const c1: Point = [x + reach, a.y - 26 - k * 6];
    const c2: Point = [x + reach, a.y + 26 + k * 6];
    // Each loop of a state gets its own line for its label, centred on the state's middle.
    return {
      d: `M${fmt(p0)} C${fmt(c1)} ${fmt(c2)} ${fmt(p3)}`,
      labelX: x + reach * 0.8 + 4,
      labelY: a.y + 4 + (k - (count - 1) / 2) * 16,
      anchor: "start",
    };
  }
  if (b.rank === a.rank + 1) {
    const p0: Point = [a.x + spread * 0.6, a.y + a.h / 2];
    const p3: Point = [b.x + spread * 0.6, b.y - b.h / 2];
    const mid: Point = [(p0[0] + p3[0]) / 2 + spread, (p0[1] + p3[1]) / 2];
    const c1: Point = [mid[0], p0[1] + (p3[1] - p0[1]) * 0.3];
    const c2: Point = [mid[0], p0[1] + (p3[1] - p0[1]) * 0.7];
    const [lx, ly] = cubicAt(p0, c1, c2, p3, 0.5);
    // A label sits on the outer side of its edge, so two edges fanning out of one state keep their labels apart.
    const leftward = p3[0] < p0[0] - 1;
    return {
      d: `M${fmt(p0)} C${fmt(c1)} ${fmt(c2)} ${fmt(p3)}`,
      labelX: leftward ? lx - 6 : lx + 6,
      labelY: ly + 4,
      anchor: leftward ? "end" : "start",
    };
  }
  if (b.rank === a.rank) {
    // Same row: an arc under the row, so it never runs through the states between the two.
    const dip = Math.max(a.h, b.h) / 2 + 26 + Math.abs(b.x - a.x) * 0.12 + k * 14;
    const p0: Point = [a.x, a.y + a.h / 2];
    const p3: Point = [b.x, b.y + b.h / 2];
    const c1: Point = [a.x + (b.x - a.x) * 0.25, a.y + dip];
    const c2: Point = [a.x + (b.x - a.x) * 0.75, b.y + dip];
    const [lx, ly] = cubicAt(p0, c1, c2, p3, 0.5);
    return { d: `M${fmt(p0)} C${fmt(c1)} ${fmt(c2)} ${fmt(p3)}`, labelX: lx, labelY: ly + 14, anchor: "middle" };
  }
  // Back edges and edges skipping ranks: out of the right side, around, into the right side.
  const span = Math.abs(b.rank - a.rank);
  const right = Math.max(a.x + a.w / 2, b.x + b.w / 2);
  const bulge = right + 40 + span * 18 + k * 22;
  const p0: Point = [a.x + a.w / 2, a.y + (b.rank >= a.rank ? 6 : -6)];
  const p3: Point = [b.x + b.w / 2, b.y + (b.rank >= a.rank ? -6 : 6)];
  const c1: Point = [bulge, p0[1]];
  const c2: Point = [bulge, p3[1]];
  const [lx, ly] = cubicAt(p0, c1, c2, p3, 0.5);
  return { d: `M${fmt(p0)} C${fmt(c1)} ${fmt(c2)} ${fmt(p3)}`, labelX: lx + 6, labelY: ly + 4, anchor: "start" };
}

/** Rough text width in px of `text` at the diagram's 13px font (no DOM to measure with). */
export function textWidth(text: string, px = 13): number {
  return Math.ceil(text.length * px * 0.6);
}

/** A label's box: (x, y) is its text anchor point on the baseline; `w` its width, `h` its line height. */
export interface LabelBox {
  x: number;
  y: number;
  w: number;
  h: number;
  anchor: "start" | "end" | "middle";
}

function boxRect(b: LabelBox): [number, number, number, number] {
  const left = b.anchor === "start" ? b.x : b.anchor === "end" ? b.x - b.w : b.x - b.w / 2;
  return [left, b.y - b.h + 3, left + b.w, b.y + 3];
}

function intersects(a: [number, number, number, number], b: [number, number, number, number]): boolean {
  return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
}

/**
 * Moves labels up or down (by whole lines, nearest first) until none overlaps another label or a
 * node; returns the new baselines in input order. A label that finds no free place within
 * `tries` lines keeps its own position. Busy diagrams (many edges sharing one gap between
 * rows, several loops on one state) need more than a few lines, hence the default of 12.
 */
export function placeLabels(labels: readonly LabelBox[], nodes: readonly PlacedNode[], tries = 12): number[] {
  const taken: [number, number, number, number][] = nodes.map((n) => [
    n.x - n.w / 2,
    n.y - n.h / 2,
    n.x + n.w / 2,
    n.y + n.h / 2,
  ]);
  return labels.map((label) => {
    for (let i = 0; i <= 2 * tries; i++) {
      const shift = (i % 2 === 1 ? 1 : -1) * Math.ceil(i / 2) * label.h;
      const rect = boxRect({ ...label, y: label.y + shift });
      if (!taken.some((t) => intersects(t, rect))) {
        taken.push(rect);
        return label.y + shift;
      }
    }
    taken.push(boxRect(label));
    return label.y;
  });
}
