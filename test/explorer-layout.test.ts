/**
 * The explorer's diagram layout (web/src/layout.ts): BFS ranks from the initial states, no two
 * nodes overlapping on any graph, deterministic placement, and finite edge routes for every
 * kind of edge (adjacent, back, long, self-loop, parallel).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { bfsRanks, type Layout, layeredLayout, placeLabels, routeEdge, textWidth } from "../web/src/layout.js";

function overlaps(layout: Layout): [number, number] | null {
  const n = layout.nodes;
  for (let i = 0; i < n.length; i++) {
    for (let j = i + 1; j < n.length; j++) {
      const a = n[i]!;
      const b = n[j]!;
      if (Math.abs(a.x - b.x) < (a.w + b.w) / 2 && Math.abs(a.y - b.y) < (a.h + b.h) / 2) return [i, j];
    }
  }
  return null;
}

const graph = fc.integer({ min: 1, max: 14 }).chain((n) =>
  fc.record({
    sizes: fc.array(fc.record({ w: fc.integer({ min: 20, max: 220 }), h: fc.integer({ min: 20, max: 50 }) }), {
      minLength: n,
      maxLength: n,
    }),
    edges: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 3 * n }),
    roots: fc.array(fc.nat(n - 1), { minLength: 0, maxLength: 2 }),
  }),
);

describe("explorer layout", () => {
  const escrow = {
    // init, deposited, delivered, released, cancelled
    sizes: Array.from({ length: 5 }, () => ({ w: 90, h: 34 })),
    edges: [
      [0, 1],
      [1, 2],
      [2, 3],
      [1, 4],
      [3, 3],
      [4, 4],
    ] as const,
    roots: [0],
  };

  it("ranks states by BFS distance from the initial state", () => {
    assert.deepEqual(bfsRanks(5, escrow.edges, escrow.roots), [0, 1, 2, 3, 2]);
    const layout = layeredLayout(escrow);
    assert.deepEqual(
      layout.nodes.map((n) => n.rank),
      [0, 1, 2, 3, 2],
    );
    // Rows go top to bottom: a later rank is lower on the page.
    assert.ok(layout.nodes[1]!.y > layout.nodes[0]!.y && layout.nodes[3]!.y > layout.nodes[2]!.y);
    assert.equal(overlaps(layout), null);
  });

  it("places states unreachable from the roots too, starting their own ranks", () => {
    const ranks = bfsRanks(
      4,
      [
        [0, 1],
        [2, 3],
      ],
      [0],
    );
    assert.deepEqual(ranks, [0, 1, 0, 1]);
  });

  it("never overlaps nodes, keeps them inside the drawing, and ranks are BFS distances (random graphs)", () => {
    fc.assert(
      fc.property(graph, (g) => {
        const layout = layeredLayout(g);
        assert.equal(overlaps(layout), null);
        for (const node of layout.nodes) {
          assert.ok(node.x - node.w / 2 >= 0 && node.x + node.w / 2 <= layout.width, "inside horizontally");
          assert.ok(node.y - node.h / 2 >= 0 && node.y + node.h / 2 <= layout.height, "inside vertically");
        }
        // BFS from the roots: an edge leaving a reached state never skips forward more than one rank.
        const reached = new Set(g.roots);
        for (let grew = true; grew; ) {
          grew = false;
          for (const [a, b] of g.edges) if (reached.has(a) && !reached.has(b)) grew = Boolean(reached.add(b));
        }
        for (const [a, b] of g.edges) {
          if (reached.has(a)) assert.ok(layout.nodes[b]!.rank <= layout.nodes[a]!.rank + 1, `${a}→${b}`);
        }
        for (const r of g.roots) assert.equal(layout.nodes[r]!.rank, 0);
        assert.deepEqual(layeredLayout(g), layout, "deterministic");
      }),
      { seed: 11, numRuns: 300 },
    );
  });

  it("orders a rank to follow its parents (fewer crossings than index order)", () => {
    // 0 → 3 and 1 → 2: index order would cross; the sweep puts 3 under 0 and 2 under 1.
    const layout = layeredLayout({
      sizes: Array.from({ length: 5 }, () => ({ w: 60, h: 30 })),
      edges: [
        [4, 0],
        [4, 1],
        [0, 3],
        [1, 2],
      ],
      roots: [4],
    });
    assert.ok(layout.nodes[0]!.x < layout.nodes[1]!.x);
    assert.ok(layout.nodes[3]!.x < layout.nodes[2]!.x, "child of the left parent is on the left");
  });

  it("routes every kind of edge as a finite SVG path", () => {
    const layout = layeredLayout(escrow);
    for (const [from, to, k, count] of [
      [0, 1, 0, 1],
      [1, 2, 0, 2],
      [1, 2, 1, 2],
      [3, 0, 0, 1],
      [0, 3, 0, 1],
      [3, 3, 0, 1],
    ] as const) {
      const r = routeEdge(layout, from, to, k, count);
      assert.match(r.d, /^M-?[\d.]+,-?[\d.]+ C/);
      assert.ok(!r.d.includes("NaN") && Number.isFinite(r.labelX) && Number.isFinite(r.labelY), r.d);
    }
    // A back edge bulges to the right of both states so it does not cut through the rows between.
    const back = routeEdge(layout, 3, 0);
    const xs = back.d.match(/-?[\d.]+(?=,)/g)!.map(Number);
    assert.ok(Math.max(...xs) > Math.max(layout.nodes[3]!.x, layout.nodes[0]!.x) + 40);
  });
});

describe("explorer edge labels", () => {
  it("moves overlapping labels apart and off the nodes", () => {
    const layout = layeredLayout({ sizes: [{ w: 80, h: 30 }], edges: [], roots: [0] });
    const node = layout.nodes[0]!;
    const labels = [
      { x: 300, y: 100, w: 120, h: 15, anchor: "start" as const },
      { x: 310, y: 102, w: 120, h: 15, anchor: "start" as const },
      { x: 360, y: 100, w: 40, h: 15, anchor: "middle" as const },
      // Sits on the node: must move off it.
      { x: node.x, y: node.y + 4, w: 30, h: 15, anchor: "middle" as const },
    ];
    const ys = placeLabels(labels, layout.nodes);
    assert.equal(ys[0], 100, "the first label keeps its place");
    const rects = labels.map((l, i) => {
      const left = l.anchor === "start" ? l.x : l.x - l.w / 2;
      return [left, ys[i]! - l.h + 3, left + l.w, ys[i]! + 3] as const;
    });
    for (let i = 0; i < rects.length; i++) {
      for (let j = i + 1; j < rects.length; j++) {
        const [a, b] = [rects[i]!, rects[j]!];
        assert.ok(!(a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]), `labels ${i} and ${j} overlap`);
      }
    }
    const [l, t, r, btm] = rects[3]!;
    const overNode =
      l < node.x + node.w / 2 && node.x - node.w / 2 < r && t < node.y + node.h / 2 && node.y - node.h / 2 < btm;
    assert.ok(!overNode, "label moved off the node");
  });
});

describe("explorer labels on a busy diagram", () => {
  it("loops on one state and a fan of edges into the next rank get labels that do not overlap", () => {
    // The shape of the escrow template with an arbiter: every state may DISPUTE, terminals loop.
    const n = 6;
    const edges: [number, number][] = [
      [0, 1],
      [1, 2],
      [2, 3],
      [1, 4],
      [0, 5],
      [1, 5],
      [2, 5],
      [5, 3],
      [5, 4],
      [3, 3],
      [3, 3],
      [4, 4],
      [4, 4],
      [4, 4],
    ];
    const sizes = Array.from({ length: n }, () => ({ w: 90, h: 30 }));
    const layout = layeredLayout({ sizes, edges, roots: [0] });
    const pairs = new Map<string, number>();
    for (const [a, b] of edges) pairs.set(`${a}>${b}`, (pairs.get(`${a}>${b}`) ?? 0) + 1);
    const seen = new Map<string, number>();
    const text = "+DISPUTE +signed_by(/users/arbiter.id)";
    const boxes = edges.map(([a, b]) => {
      const k = seen.get(`${a}>${b}`) ?? 0;
      seen.set(`${a}>${b}`, k + 1);
      const r = routeEdge(layout, a, b, k, pairs.get(`${a}>${b}`)!);
      return { x: r.labelX, y: r.labelY, w: textWidth(text, 12), h: 15, anchor: r.anchor };
    });
    const ys = placeLabels(boxes, layout.nodes);
    const rects = boxes.map((l, i) => {
      const left = l.anchor === "start" ? l.x : l.anchor === "end" ? l.x - l.w : l.x - l.w / 2;
      return [left, ys[i]! - l.h + 3, left + l.w, ys[i]! + 3] as const;
    });
    for (let i = 0; i < rects.length; i++) {
      for (let j = i + 1; j < rects.length; j++) {
        const [a, b] = [rects[i]!, rects[j]!];
        assert.ok(!(a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]), `labels ${i} and ${j} overlap`);
      }
    }
  });
});
