import { braceMatches } from "./braceMatches.js";
import { matchingBrace } from "./matchingBrace.js";

/** What a language model's answer holds, before any checking. */
export interface ParsedAnswer {
  /** The first model text found, or null. */
  model: string | null;
  rules: string[];
  parties: string[];
  protections: Record<string, string>;
}

const MODEL_START = /\b(?:export\s+default\s+model|model\s+[A-Za-z_][A-Za-z0-9_]*)\s*\{/g;
const RULE_START = /\b(?:export\s+default\s+rule|rule\s+[A-Za-z_][A-Za-z0-9_]*)\s*\{/g;

/** A party name as used in state paths: lower case, `[a-z0-9_]`. */
export function partyName(raw: string): string {
  return raw
    .replace(/[*`"']/g, " ")
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

/** Every brace-delimited block starting with `start`, in order, without overlaps. */
function blocks(text: string, start: RegExp): string[] {
  const out: string[] = [];
  start.lastIndex = 0;
  for (let m = start.exec(text); m !== null; m = start.exec(text)) {
    const close = matchingBrace(text, m.index + m[0].length - 1);
    if (close < 0) {
      // An unclosed block is still a candidate: the checker will report it precisely.
      out.push(text.slice(m.index));
      break;
    }
    out.push(text.slice(m.index, close + 1));
    start.lastIndex = close + 1;
  }
  return out;
}

/** Comment lines directly above `index` (a rule's one-line guarantee), kept with the rule. */
function leadingComment(text: string, index: number): string {
  // Walks back line by line from the rule (not splitting all the text before it, which cost
  // the square of the answer's length when an answer held thousands of rules).
  const lines: string[] = [];
  for (let end = text.lastIndexOf("\n", index - 1); end > 0; ) {
    const start = text.lastIndexOf("\n", end - 1) + 1;
    const line = text.slice(start, end);
    if (!/^\s*\/\/.*$/.test(line)) break;
    lines.unshift(line.trim());
    end = start - 1;
  }
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}

function ruleBlocks(text: string): string[] {
  const out: string[] = [];
  RULE_START.lastIndex = 0;
  for (let m = RULE_START.exec(text); m !== null; m = RULE_START.exec(text)) {
    const close = matchingBrace(text, m.index + m[0].length - 1);
    const end = close < 0 ? text.length : close + 1;
    out.push(leadingComment(text, m.index) + text.slice(m.index, end));
    RULE_START.lastIndex = end;
  }
  return out;
}

/** The lines of a markdown section whose heading contains `title` (any level, or a bold line), up to the next heading. */
function section(text: string, title: RegExp): string[] {
  const lines = text.split("\n");
  const heading = (l: string) => /^\s*(#{1,6}\s|\*\*[^*]+\*\*:?\s*$)/.test(l);
  const start = lines.findIndex((l) => heading(l) && title.test(l));
  if (start < 0) return [];
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (heading(line) || line.startsWith("```")) break;
    out.push(line);
  }
  return out;
}

/**
 * What each fenced block holds (after the fence's first line, up to the next fence). Found
 * with indexOf: a regular expression retried from each ``` to the end of its line, so 96 KB
 * of ``` without a line break took 27 s. No fence can open past the last line break or close
 * past the last ```, so the first miss ends the search.
 */
function fencedBodies(text: string): string[] {
  const out: string[] = [];
  for (let i = text.indexOf("```"); i >= 0; ) {
    const start = text.indexOf("\n", i + 3);
    if (start < 0) break;
    const end = text.indexOf("```", start + 1);
    if (end < 0) break;
    out.push(text.slice(start + 1, end));
    i = text.indexOf("```", end + 3);
  }
  return out;
}

/** A list item `- name (note): text`; a name has at most 100 characters, which keeps the match linear. */
const ITEM = /^ ?(?:[-*+]|\d+[.)])? ?\**([A-Za-z][\w .'-]{0,99}?)\**(?: ?\([^)]*\))? ?(?::|—|–|-) ?(.+)$/;
const BARE_ITEM = /^ ?(?:[-*+]|\d+[.)]) ?\**([A-Za-z]\w*)\**(?: ?\(.*\))? ?$/;

/** `- **Alice**: text`, `* alice — text`, `1. Alice: text` → [name, text]. */
function listItem(line: string): [string, string] | null {
  // Each run of white space is one space here: the expressions tried every split of a run
  // between their optional spaces (a line of 2,000 spaces took 13 s).
  const l = line.replace(/\s+/g, " ");
  const m = ITEM.exec(l);
  if (m) return [m[1]!, m[2]!.trim()];
  const bare = BARE_ITEM.exec(l);
  return bare ? [bare[1]!, ""] : null;
}

/**
 * A formula of a reference-style list (`- F1: \`always(…)\``): the text from before its first
 * `(` to after its last `)`, no backquote outside them. Found with indexOf, since an
 * expression of three overlapping runs backtracked over every `(` and `)` of a long line.
 */
function formulaLine(line: string): string {
  let body = line.replace(/^\s*(?:[-*]\s*)?(?:F\d+:\s*)?`?/, "").trimEnd();
  if (body.endsWith("`")) body = body.slice(0, -1);
  const open = body.indexOf("(");
  const close = body.lastIndexOf(")");
  if (open < 0 || close < open) return "";
  if (body.slice(0, open).includes("`") || body.slice(close + 1).includes("`")) return "";
  return body.trim();
}

function textFormat(text: string): ParsedAnswer {
  // Prefer what is inside code fences; fall back to the whole text for bare models and rules.
  const fenced = fencedBodies(text).join("\n");
  const models = blocks(fenced, MODEL_START);
  const model = (models.length > 0 ? models : blocks(text, MODEL_START))[0] ?? null;
  let rules = ruleBlocks(fenced);
  if (rules.length === 0) rules = ruleBlocks(text);
  if (rules.length === 0) {
    // Reference-style formula lists ("F1: always(...)") under a Rules heading.
    rules = section(text, /rules|formulas/i)
      .map(formulaLine)
      .filter((f) => f !== "");
  }
  const parties: string[] = [];
  for (const line of section(text, /parties/i)) {
    const item = listItem(line);
    if (item) parties.push(partyName(item[0]));
  }
  const protections: Record<string, string> = {};
  for (const line of section(text, /protections/i)) {
    const item = listItem(line);
    if (item && item[1] !== "") protections[partyName(item[0])] = item[1];
  }
  return { model, rules, parties, protections };
}

function strings(v: unknown): string[] {
  if (typeof v === "string") return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** `{model, rules, parties, protections}` in any reasonable JSON spelling. */
function jsonFormat(value: Record<string, unknown>): ParsedAnswer {
  const rules = Array.isArray(value.rules)
    ? value.rules.flatMap((r) =>
        typeof r === "string"
          ? [r]
          : strings((r as { formula?: unknown; text?: unknown })?.text ?? (r as { formula?: unknown })?.formula),
      )
    : strings(value.rules);
  let parties: string[] = [];
  if (Array.isArray(value.parties)) {
    parties = value.parties.flatMap((p) =>
      strings(typeof p === "object" && p !== null ? (p as { name?: unknown }).name : p),
    );
  } else if (typeof value.parties === "object" && value.parties !== null) {
    parties = Object.keys(value.parties);
  }
  const protections: Record<string, string> = {};
  const raw = value.protections;
  if (Array.isArray(raw)) {
    for (const p of raw as Array<{ party?: unknown; protection?: unknown }>) {
      if (typeof p?.party === "string" && typeof p.protection === "string")
        protections[partyName(p.party)] = p.protection;
    }
  } else if (typeof raw === "object" && raw !== null) {
    for (const [k, v] of Object.entries(raw)) {
      if (typeof v === "string") protections[partyName(k)] = v;
      else if (Array.isArray(v)) protections[partyName(k)] = strings(v).join(". ");
    }
  }
  return {
    model: typeof value.model === "string" ? value.model : null,
    rules,
    parties: parties.map(partyName).filter((p) => p !== ""),
    protections,
  };
}

/** The first JSON object in the text that has a `model` field (bare, fenced, or with prose around). */
function findJson(text: string): Record<string, unknown> | null {
  if (!/"model"\s*:/.test(text)) return null;
  // Every brace is a candidate; one scan answers for all the braces it meets, so a long run of
  // unclosed braces (a model stuck repeating one) costs one pass, not one per brace.
  const closes = new Map<number, number>();
  // Each candidate is parsed from its brace to its close, so nested objects are read once per
  // level: 100 KB of `{"a":{"a":…}}` took a minute. Past reading the text a few times over,
  // the answer is not the one object asked for and the search stops.
  let budget = 4 * text.length + 65_536;
  for (let i = text.indexOf("{"); i >= 0; i = text.indexOf("{", i + 1)) {
    if (!/^\{\s*"/.test(text.slice(i, i + 64))) continue;
    if (!closes.has(i))
      for (const [start, end] of braceMatches(text, i)) if (!closes.has(start)) closes.set(start, end);
    const close = closes.get(i) ?? -1;
    if (close < 0) continue;
    budget -= close + 1 - i;
    if (budget < 0) return null;
    try {
      const value = JSON.parse(text.slice(i, close + 1)) as unknown;
      if (typeof value === "object" && value !== null && !Array.isArray(value) && "model" in value) {
        return value as Record<string, unknown>;
      }
    } catch {
      // not JSON (e.g. a model's body): keep looking
    }
  }
  return null;
}

/**
 * Reads a language model's answer, tolerating any reasonable shape: a
 * single JSON object `{model, rules, parties, protections}`, or text with fenced (```modality)
 * or bare `model … { }` and `export default rule { … }` blocks, "## Parties" and
 * "## Protections" lists, and prose around them. Nothing is checked here.
 */
export function parseAnswer(text: string): ParsedAnswer {
  const json = findJson(text);
  if (json !== null) return jsonFormat(json);
  return textFormat(text);
}
