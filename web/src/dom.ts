/** Tiny DOM builders: the explorer renders with these instead of a framework. */
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | ((e: Event) => void)>;

function apply(el: Element, attrs: Attrs, children: Child[]): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === "object" ? c : String(c));
  }
}

/** An HTML element: `h("a", {href: "#/"}, "Home")`; `on*` attributes are listeners. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  apply(el, attrs, children);
  return el;
}

/**
 * A table in a box that scrolls sideways when the table is wider than the page: values are the
 * contracts' own (a 300-character state name, a long path), and screens may be narrow.
 */
export function scrollTable(attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  return h("div", { class: "table-scroll" }, h("table", attrs, ...children));
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element. */
export function s(tag: string, attrs: Attrs = {}, ...children: Child[]): SVGElement {
  const el = document.createElementNS(SVG_NS, tag) as SVGElement;
  apply(el, attrs, children);
  return el;
}

/** Replaces an element's children. */
export function mount(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  apply(parent, {}, children);
}

/** `ed25519:abcdef…` → `abcdef…1234`: enough to tell keys apart, with the full key as a tooltip. */
export function shortKey(key: string | undefined | null): HTMLElement | string {
  if (!key) return "";
  const hex = key.replace(/^ed25519:/, "");
  return h("code", { class: "key", title: key }, hex.length > 14 ? `${hex.slice(0, 8)}…${hex.slice(-4)}` : hex);
}

/** Unix seconds as local date and time. */
export function when(seconds: number | undefined): string {
  return seconds === undefined ? "" : new Date(seconds * 1000).toLocaleString();
}

/** A JSON value as short text. */
export function preview(value: unknown, max = 80): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (text === undefined) return "";
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
