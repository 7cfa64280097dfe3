/**
 * The outcome of parsing each big rule text of the last push or so. A rule text may be
 * 64 KiB, a few milliseconds to parse (tens while the parser is cold), and one commit may
 * carry dozens of them, each parsed by the shape check and again by the rule's decision: the
 * hub parses each big text once, one text per slice (`parseRulesSliced`), and every later
 * parse of it is a lookup. Small texts are parsed each time (cheaper than remembering).
 *
 * A push shape-checks all its commits before it decides the first, so the memo holds a
 * push's worth of text (the push body limit), not one commit's: kept by count (64, one
 * commit's operations), a push of 4 commits of 60 big rules parsed every rule of its first
 * commits again while deciding them, 240 more syntax trees for the collector. The bound is
 * on characters, which bounds the trees too (a 64 KiB rule's tree is 0.7-2 MB); while the
 * push's state is alive it holds the same trees, so the memo costs memory only for parses
 * no state kept (a refused push), and only until KEPT_MS after the last one.
 *
 * Entries are found without hashing the text: V8 hashes strings longer than 16 K characters
 * by their length alone, so a Map keyed by many texts of one length would compare them in
 * full on every lookup. A fingerprint (the length and a few dozen characters spread over the
 * text) picks the candidates and `===` confirms one (customModuleMemo.ts does the same).
 */
import type { RuleDecl } from "../lang/ast.js";
import { ParseError, parseRule } from "../lang/parser.js";
import { DEFAULT_LIMITS } from "./limits.js";
import { MEMO_MIN_CHARS } from "./modelParseMemo.js";

/** Texts at least this long (in characters) are remembered. */
export const RULE_MEMO_MIN_CHARS = MEMO_MIN_CHARS;
/** Characters of the texts whose outcomes are kept, least recently used out: one push's body. */
const KEPT_CHARS = DEFAULT_LIMITS.pushBodyBytes;
/** How long outcomes are kept after the last one was added: the request that parsed them, and a retry. */
const KEPT_MS = 30_000;
/** Characters sampled for the fingerprint. */
const SAMPLES = 48;

interface Entry {
  text: string;
  fingerprint: string;
  outcome: RuleDecl | ParseError;
}

let entries: Entry[] = [];
/** Characters of the texts in `entries`. */
let keptChars = 0;
let parses = 0;
let expiry: ReturnType<typeof setTimeout> | undefined;

function fingerprint(text: string): string {
  const n = text.length;
  let out = `${n}:`;
  for (let i = 0; i < SAMPLES; i++) out += text[Math.floor((i * (n - 1)) / (SAMPLES - 1))];
  return out;
}

function lookUp(text: string, print: string): Entry | undefined {
  const at = entries.findIndex((e) => e.fingerprint === print && e.text === text);
  if (at < 0) return undefined;
  const entry = entries[at]!;
  entries.splice(at, 1);
  entries.push(entry);
  return entry;
}

function remember(entry: Entry): void {
  entries.push(entry);
  keptChars += entry.text.length;
  while (keptChars > KEPT_CHARS) keptChars -= entries.shift()!.text.length;
  // The syntax trees of a push's texts are hundreds of megabytes: dropped once no request has added any for a while.
  clearTimeout(expiry);
  expiry = setTimeout(forgetRuleParses, KEPT_MS);
  // Node's timer would keep a process alive; a browser's (the engine runs there too) is a number.
  (expiry as { unref?: () => void }).unref?.();
}

/** `parseRule` through the memo (throws the ParseError a remembered text failed with). */
export function parseRuleMemo(text: string): RuleDecl {
  if (text.length < RULE_MEMO_MIN_CHARS) return parseRule(text);
  const print = fingerprint(text);
  let entry = lookUp(text, print);
  if (entry === undefined) {
    parses++;
    let outcome: RuleDecl | ParseError;
    try {
      outcome = parseRule(text);
    } catch (err) {
      if (!(err instanceof ParseError)) throw err;
      outcome = err;
    }
    entry = { text, fingerprint: print, outcome };
    remember(entry);
  }
  if (entry.outcome instanceof ParseError) throw entry.outcome;
  return entry.outcome;
}

/**
 * Parses `texts` (rule texts as received, not validated yet) one per step, awaiting `tick`
 * before each, so that the synchronous parses that follow find them remembered. The rule
 * parser reads a formula in one go (it cannot pause inside one), so a text is the smallest
 * piece. A text that does not parse is remembered with its error; nothing is thrown for it.
 */
export async function parseRulesSliced(texts: readonly string[], tick: () => Promise<void> | void): Promise<void> {
  for (const text of texts) {
    await tick();
    try {
      parseRuleMemo(text);
    } catch (err) {
      if (!(err instanceof ParseError)) throw err;
    }
  }
}

/** How many big rule texts were parsed (not found remembered) since the process started (tests). */
export function ruleTextParses(): number {
  return parses;
}

/** Forgets every outcome (tests, and KEPT_MS after the last one was added). */
export function forgetRuleParses(): void {
  entries = [];
  keptChars = 0;
  clearTimeout(expiry);
  expiry = undefined;
}
