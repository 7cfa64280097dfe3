/**
 * The contract's data state, rebuilt from its pulled commits with the engine's own
 * `dataWrites` (posts, reposts and rules at their paths, the model at
 * /model/default.modality), shown as a tree of paths typed by their extension.
 */
import type { PulledCommit } from "../../src/contract/Commit.js";
import { dataWrites } from "../../src/contract/dataWrites.js";
import { h, preview } from "./dom.js";

export type { PulledCommit } from "../../src/contract/Commit.js";

/** Spec 2.5: path extension → content type. */
export const EXTENSION_TYPES: Readonly<Record<string, string>> = {
  id: "Identity",
  text: "Text",
  bool: "Boolean",
  json: "JSON",
  md: "Markdown",
  date: "Date",
  datetime: "DateTime",
  wasm: "WASM",
  modality: "Modality",
};

/** Applies a commit's writes to `data` (path → value), in operation order, as the hub does. */
export function applyCommit(data: Map<string, unknown>, commit: PulledCommit): void {
  for (const [path, value] of dataWrites(commit.data)) data.set(path, value);
}

interface TreeNode {
  name: string;
  children: Map<string, TreeNode>;
  path?: string;
  value?: unknown;
}

function tree(data: Map<string, unknown>): TreeNode {
  const root: TreeNode = { name: "/", children: new Map() };
  for (const path of [...data.keys()].sort()) {
    let node = root;
    for (const seg of path.split("/").filter(Boolean)) {
      let next = node.children.get(seg);
      if (!next) {
        next = { name: seg, children: new Map() };
        node.children.set(seg, next);
      }
      node = next;
    }
    node.path = path;
    node.value = data.get(path);
  }
  return root;
}

function typeOf(path: string): string {
  const m = /\.([a-z]+)$/.exec(path);
  return m ? (EXTENSION_TYPES[m[1]!] ?? m[1]!) : "untyped";
}

function renderNode(node: TreeNode): HTMLElement {
  const kids = [...node.children.values()];
  const leaf =
    node.path !== undefined
      ? [
          h("span", { class: `type type-${typeOf(node.path)}` }, typeOf(node.path)),
          h("code", { class: "value", title: preview(node.value, 2000) }, preview(node.value)),
        ]
      : [];
  return h(
    "li",
    { "data-path": node.path ?? null },
    h("span", { class: node.path ? "leaf" : "dir" }, node.name + (kids.length && !node.path ? "/" : "")),
    ...leaf,
    kids.length ? h("ul", {}, ...kids.map(renderNode)) : null,
  );
}

/** The data state as a nested list. */
export function renderDataTree(data: Map<string, unknown>): HTMLElement {
  if (data.size === 0) return h("p", { class: "muted" }, "No data yet.");
  const root = tree(data);
  return h("ul", { class: "tree" }, ...[...root.children.values()].map(renderNode));
}
