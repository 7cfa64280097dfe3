/**
 * JSON.stringify of a big commit's `data` column, written in pieces with `tick()` between
 * them. A commit whose value is an object of 400,000 members held the event loop 430 ms to
 * 1.7 s in the one JSON.stringify of its row: V8 lists all the keys of so wide an object in
 * one go, then writes it. Here the members of a wide object parsed in slices come from the
 * names its parser remembered (memberNames.ts), in JSON.stringify's order (array indices
 * first, ascending, then the others as they were added), so the text is the same, byte for byte.
 *
 * Only for plain data the hub built or checked (no toJSON, no cycles); an undefined member
 * is left out and an undefined element written null, as JSON.stringify does.
 */
import { sortInSlices } from "../contract/commitHashInSlices.js";
import { memberNamesOf } from "../contract/memberNames.js";

/** Characters written between two pauses: a millisecond or two. */
const PIECE_CHARS = 64 * 1024;

/** The text so far, and how much of it was written since the last pause (reset by the caller's loop). */
interface Out {
  text: string;
  since: number;
}

/** Whether `key` is an array index, which objects list first (ECMAScript OrdinaryOwnPropertyKeys). */
const isIndex = (key: string) => /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 4294967295;

/** Whether the first half of a surrogate pair ends at `to` (a cut there would split the pair). */
export const splitsPair = (s: string, to: number) => {
  const c = s.charCodeAt(to - 1);
  return c >= 0xd800 && c <= 0xdbff;
};

/** `text` in pieces of `chars` characters (one fewer where a surrogate pair would be cut), each encodable on its own. */
export function* textPieces(text: string, chars: number): Generator<string, void, void> {
  for (let from = 0; from < text.length; ) {
    let to = Math.min(from + chars, text.length);
    if (to < text.length && splitsPair(text, to)) to--;
    yield text.slice(from, to);
    from = to;
  }
}

function add(o: Out, text: string): void {
  o.text += text;
  o.since += text.length;
}

function* write(o: Out, value: unknown): Generator<void, void, void> {
  if (typeof value === "string" && value.length > PIECE_CHARS) {
    // JSON.stringify escapes each character on its own (a pair's halves only together): cut
    // between pairs, the cuts' texts join into the whole one.
    add(o, '"');
    for (let from = 0; from < value.length; ) {
      let to = Math.min(from + PIECE_CHARS, value.length);
      if (to < value.length && splitsPair(value, to)) to--;
      add(o, JSON.stringify(value.slice(from, to)).slice(1, -1));
      from = to;
      if (o.since >= PIECE_CHARS) yield;
    }
    add(o, '"');
    return;
  }
  if (value === null || typeof value !== "object") {
    // What JSON.stringify writes of undefined, a function or a symbol in an array (members
    // holding one are left out below).
    add(o, JSON.stringify(value) ?? "null");
    return;
  }
  if (Array.isArray(value)) {
    add(o, "[");
    for (let i = 0; i < value.length; i++) {
      if (i > 0) add(o, ",");
      yield* write(o, value[i]);
      if (o.since >= PIECE_CHARS) yield;
    }
    add(o, "]");
    return;
  }
  const names = memberNamesOf(value);
  const keys = names === undefined ? Object.keys(value) : yield* ownKeyOrder(names);
  add(o, "{");
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const member = (value as Record<string, unknown>)[key];
    // Left out, as JSON.stringify leaves them out (an answer's optional members may be unset).
    if (member === undefined || typeof member === "function" || typeof member === "symbol") continue;
    add(o, `${first ? "" : ","}${JSON.stringify(key)}:`);
    first = false;
    yield* write(o, member);
    if (o.since >= PIECE_CHARS) yield;
  }
  add(o, "}");
}

/** Names looked at between two pauses. */
const NAME_STEPS = 16 * 1024;

/** `names` (in the order they were added) in the order Object.keys lists them, in pieces. */
function* ownKeyOrder(names: readonly string[]): Generator<void, readonly string[], void> {
  const indices: string[] = [];
  const others: string[] = [];
  for (let i = 0; i < names.length; i++) {
    const key = names[i]!;
    if (isIndex(key)) indices.push(key);
    else others.push(key);
    if ((i + 1) % NAME_STEPS === 0) yield;
  }
  if (indices.length === 0) return names;
  const ordered = yield* sortInSlices(indices, (a, b) => Number(a) < Number(b));
  for (let i = 0; i < others.length; i++) {
    ordered.push(others[i]!);
    if ((i + 1) % NAME_STEPS === 0) yield;
  }
  return ordered;
}

/** JSON.stringify(data), the same text, in pieces with `tick()` between them. */
export async function dataTextInSlices(data: unknown, tick: () => Promise<void> | void): Promise<string> {
  const o: Out = { text: "", since: 0 };
  const pieces = write(o, data);
  while (!pieces.next().done) {
    o.since = 0;
    await tick();
  }
  return o.text;
}
