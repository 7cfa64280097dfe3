/**
 * JSON.parse of a big stored column, in the shared slices of the event loop. parseJsonInSlices
 * cuts a text between values, but one string is one value: a commit holding one string of
 * 15 MB was still one JSON.parse of 20-90 ms. Here long strings are taken out of the text
 * first (each replaced by a short stand-in no stored value can hold), the rest is parsed by
 * parseJsonInSlices, each long string is decoded in cuts, and the stand-ins are replaced.
 *
 * Only for the store's own columns: text written by JSON.stringify from checked values.
 * Damaged text still fails as it would in JSON.parse (a string with a bad escape fails in its
 * cut; the text around the strings fails in its parse), with a SyntaxError or ContractError.
 */
import { randomBytes } from "node:crypto";
import { ownKeys } from "../../contract/memberNames.js";
import { parseJsonInSlices } from "../../contract/parseJsonInSlices.js";
import { sliceIsDue, yieldSometimes } from "../../lib/sharedSlice.js";

/** Strings longer than this (characters of their JSON text) are taken out and decoded in cuts. */
const LONG_STRING = 64 * 1024;
/** Characters of a string's JSON text decoded per JSON.parse: a millisecond or two. */
const CUT_CHARS = 128 * 1024;
/** Characters scanned for strings between two ticks: a millisecond or two. */
const SCAN_CHARS = 64 * 1024;
/** Members and elements walked between two looks at the slice. */
const STEPS = 1024;

/** Sliced JSON.parse of `text`, a column the store wrote. */
export async function parseStoredJson(text: string): Promise<unknown> {
  const spans = await longStrings(text);
  if (spans.length === 0) return parseJsonInSlices(text, {}, { tick: yieldSometimes });
  // A stand-in per long string: random, so no value stored can be mistaken for one.
  const mark = `#${randomBytes(16).toString("hex")}:`;
  let rest = "";
  let from = 0;
  spans.forEach(([open, close], k) => {
    rest += `${text.slice(from, open)}"${mark}${k}"`;
    from = close + 1;
  });
  rest += text.slice(from);
  const value = await parseJsonInSlices(rest, {}, { tick: yieldSometimes });
  const strings: string[] = [];
  for (const [open, close] of spans) strings.push(await decodeString(text, open + 1, close));
  return replaceMarks(value, mark, strings);
}

/**
 * Where the long strings of `text` open and close (their quotes), found in one pass with a
 * tick every SCAN_CHARS. A loop over the characters, not indexOf: in a text holding any
 * character past U+00FF, indexOf scanned about 8 ns a character (115 ms over 15 MB in one call).
 */
async function longStrings(text: string): Promise<Array<[number, number]>> {
  const spans: Array<[number, number]> = [];
  let open = -1;
  for (let i = 0; i < text.length; ) {
    const end = Math.min(i + SCAN_CHARS, text.length);
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      if (open >= 0) {
        // A backslash escapes the next character (the loop steps over it).
        if (c === 0x5c) i++;
        else if (c === 0x22) {
          // A long member name stays (rare, and a stand-in cannot replace a name).
          if (i - open > LONG_STRING && !isName(text, i)) spans.push([open, i]);
          open = -1;
        }
      } else if (c === 0x22) open = i;
    }
    if (i < text.length) await yieldSometimes();
  }
  return spans;
}

/** Whether the string closed at `close` is a member name (a colon follows). */
function isName(text: string, close: number): boolean {
  let i = close + 1;
  while (/\s/.test(text[i] ?? "")) i++;
  return text[i] === ":";
}

/** The string whose JSON text (quotes excluded) is `text[from, to)`, decoded in cuts. */
async function decodeString(text: string, from: number, to: number): Promise<string> {
  let out = "";
  while (from < to) {
    const cut = escapeFree(text, from, Math.min(from + CUT_CHARS, to));
    // The halves of a pair may fall in two cuts (raw or escaped): joined, they are the pair again.
    out += JSON.parse(`"${text.slice(from, cut)}"`) as string;
    from = cut;
    if (from < to) await yieldSometimes();
  }
  return out;
}

/**
 * `at`, or the start of the escape it would cut (`\x` or `\uXXXX`): the nearest backslash
 * before `at`, within an escape's length, that an even run of backslashes precedes.
 */
function escapeFree(text: string, from: number, at: number): number {
  for (let b = at - 1; b >= from && b >= at - 6; b--) {
    if (text.charCodeAt(b) !== 0x5c) continue;
    let run = 1;
    while (b - run >= from && text.charCodeAt(b - run) === 0x5c) run++;
    // An even run ends with an escaped backslash: no escape spans `at` from here.
    if (run % 2 === 0) return at;
    const length = text[b + 1] === "u" ? 6 : 2;
    return b + length > at ? b : at;
  }
  return at;
}

/**
 * `value` with each stand-in string `${mark}${k}` replaced by `strings[k]`, walked in slices.
 * A wide object's names are those its parser remembered (memberNames.ts): Object.keys of an
 * object of 100,000 members next to a long string listed them all in one piece.
 */
async function replaceMarks(value: unknown, mark: string, strings: string[]): Promise<unknown> {
  const swap = (v: unknown) =>
    typeof v === "string" && v.startsWith(mark) ? strings[Number(v.slice(mark.length))] : undefined;
  const root = swap(value);
  if (root !== undefined) return root;
  const stack: unknown[] = [value];
  let steps = 0;
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object") continue;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const long = swap(node[i]);
        if (long !== undefined) node[i] = long;
        else if (node[i] !== null && typeof node[i] === "object") stack.push(node[i]);
        if (++steps % STEPS === 0 && sliceIsDue()) await yieldSometimes();
      }
      continue;
    }
    const holder = node as Record<string, unknown>;
    const keys = ownKeys(holder);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const child = holder[key];
      const long = swap(child);
      if (long !== undefined) holder[key] = long;
      else if (child !== null && typeof child === "object") stack.push(child);
      if (++steps % STEPS === 0 && sliceIsDue()) await yieldSometimes();
    }
  }
  return value;
}
