/**
 * Passes over JSON text before it is parsed: each refuses nesting deeper than the limit (so
 * deep input cannot exhaust the parser's stack); countJsonMembers (every body) counts member
 * names, scanJsonText (only once a count shows a duplicate) finds the first duplicate name
 * at any depth. JSON.parse keeps the last of two equal names silently, while other parsers
 * keep the first or fail: a body with a duplicate would mean one thing to its signer and
 * another to the hub, so the hub gives every body one meaning by refusing it (I-JSON,
 * RFC 7493). Names are compared after unescaping (`"a"` and `"\u0061"` are the same).
 *
 * The scan only recognizes structure; it does not validate it. Text that is not JSON may
 * yield a spurious duplicate, so the caller reports a duplicate only once the text parsed.
 */
import { ContractError } from "./ContractError.js";

/** The first duplicate member name the scan found. */
export interface DuplicateKey {
  /** The name, unescaped. */
  key: string;
  /** Offset of the second occurrence in the text (UTF-16 code units). */
  position: number;
}

/**
 * The fast pass run on every body: refuses nesting deeper than `maxDepth` (INVALID_REQUEST
 * `json_too_deep`) and counts the member names, i.e. the colons outside strings, without
 * allocating anything. Once the text parsed, a duplicate member shows as an object with fewer
 * own keys than the text has members (JSON.parse keeps one of two equal names), so comparing
 * this count with the parsed keys detects a duplicate at any depth; only then does
 * scanJsonText run to name it.
 */
export function countJsonMembers(text: string, maxDepth: number): number {
  let depth = 0;
  let members = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = closingQuote(text, i);
      if (i < 0) return members; // unterminated: JSON.parse reports it with its position
    } else if (c === 0x3a) {
      members++;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) throw tooDeep(maxDepth, i);
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return members;
}

/**
 * The position of the quote that closes the string opened at `open`, or -1 when it is never
 * closed: the next quote, unless an odd run of backslashes before it escapes it.
 */
export function closingQuote(text: string, open: number): number {
  let i = open;
  for (;;) {
    const q = text.indexOf('"', i + 1);
    if (q < 0) return -1;
    let k = q - 1;
    while (text.charCodeAt(k) === 0x5c) k--;
    i = q;
    if ((q - 1 - k) % 2 === 0) return q;
  }
}

/** INVALID_REQUEST `json_too_deep` at `position`. */
export function tooDeep(maxDepth: number, position: number): ContractError {
  return new ContractError(
    "INVALID_REQUEST",
    `Cannot parse JSON: nesting deeper than ${maxDepth} at position ${position}`,
    {
      reason: "json_too_deep",
      limit: maxDepth,
      position,
    },
  );
}

/** Objects with at most this many members compare names linearly; larger ones use a Set. */
const LINEAR_MEMBERS = 12;

interface Frame {
  isObject: boolean;
  /** In an object: the next string is a member name (after `{` or `,`). */
  expectKey: boolean;
  names: string[] | Set<string> | null;
}

/**
 * Throws INVALID_REQUEST `json_too_deep` past `maxDepth`; returns the first duplicate member
 * name, or null.
 */
export function scanJsonText(text: string, maxDepth: number): DuplicateKey | null {
  const scan = new DuplicateScan(text, maxDepth);
  scan.run(text.length);
  return scan.duplicate;
}

/**
 * scanJsonText as a resumable scan: `run(until)` advances to position `until`, so a caller
 * on the event loop can yield between stretches of a long text (parseJsonInSlices).
 */
export class DuplicateScan {
  /** The first duplicate found so far. */
  duplicate: DuplicateKey | null = null;
  #i = 0;
  readonly #stack: Frame[] = [];
  #top: Frame | undefined;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  /** True once the scan reached the end of the text or found a duplicate. */
  get done(): boolean {
    return this.#i >= this.text.length || this.duplicate !== null;
  }

  run(until: number): void {
    const { text, maxDepth } = this;
    const stack = this.#stack;
    let top = this.#top;
    const n = Math.min(until, text.length);
    let i = this.#i;
    for (; i < n && this.duplicate === null; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        const start = i;
        i = closingQuote(text, start);
        if (i < 0) {
          // Unterminated: JSON.parse reports it with its position.
          this.#i = text.length;
          return;
        }
        if (top?.expectKey) {
          top.expectKey = false;
          const raw = text.slice(start + 1, i);
          const key = raw.includes("\\") ? unescapeName(`"${raw}"`) : raw;
          if (key !== null && remember(top, key)) this.duplicate = { key, position: start };
        } else if (top) {
          top.expectKey = false;
        }
      } else if (c === 0x7b || c === 0x5b) {
        if (stack.length >= maxDepth) throw tooDeep(maxDepth, i);
        top = { isObject: c === 0x7b, expectKey: c === 0x7b, names: null };
        stack.push(top);
      } else if (c === 0x7d || c === 0x5d) {
        stack.pop();
        top = stack[stack.length - 1];
      } else if (c === 0x2c) {
        if (top?.isObject) top.expectKey = true;
      }
    }
    this.#i = i;
    this.#top = top;
  }
}

/** Adds `key` to the frame's names; true when it was already there. */
function remember(frame: Frame, key: string): boolean {
  const names = frame.names;
  if (names === null) {
    frame.names = [key];
    return false;
  }
  if (Array.isArray(names)) {
    if (names.includes(key)) return true;
    if (names.length < LINEAR_MEMBERS) {
      names.push(key);
    } else {
      frame.names = new Set(names).add(key);
    }
    return false;
  }
  if (names.has(key)) return true;
  names.add(key);
  return false;
}

/** The unescaped text of a quoted name with escapes; null when the escapes are malformed (the parse reports it). */
function unescapeName(quoted: string): string | null {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return null;
  }
}

/** The INVALID_REQUEST `duplicate_key` error for a duplicate the scan found. */
export function duplicateKeyError(dup: DuplicateKey): ContractError {
  return new ContractError(
    "INVALID_REQUEST",
    `Cannot accept JSON: member name ${JSON.stringify(dup.key.slice(0, 80))} appears twice in one object (position ${dup.position})`,
    { reason: "duplicate_key", key: dup.key.slice(0, 200), position: dup.position },
  );
}
