/**
 * computeCommitHash for commits too big to hash in one go on the event loop: the same
 * canonical text (commitCanonicalText), written in pieces and fed to SHA-256 piece by piece,
 * with `tick()` between pieces so the caller can yield (and charge the time). A commit holding
 * one value of 15 MB held the loop 115 ms in canonicalize and the one-shot hash, 350 ms when
 * the text is not ASCII; a piece is PIECE_CHARS of text.
 *
 * The hub hashes a big commit this way before its shape check (`prepareCommitHash`), which
 * then finds the hash here (`preparedCommitHash`) instead of computing it. Small commits, the
 * common case, are hashed by the shape check as before: no promise, no lookup cost beyond an
 * empty list. No timer here: this module also runs in the browser; the tick is the caller's.
 */
import { createHash } from "node:crypto";
import type { Operation } from "./Commit.js";
import { ContractError } from "./ContractError.js";
import {
  canonicalize,
  checkNumber,
  escapePointer,
  hasLoneSurrogate,
  loneSurrogate,
  nonPlain,
  tooDeep,
} from "./canonicalJson.js";
import { DEFAULT_LIMITS } from "./limits.js";
import { memberNamesOf } from "./memberNames.js";

/** Characters of canonical text per piece (and per cut of a long string): well under a millisecond to hash. */
const PIECE_CHARS = 64 * 1024;
/** Nesting of an operation's value inside the payload: payload object, data array, operation. */
const VALUE_DEPTH = 3;
/**
 * Weight (characters of strings and keys, WEIGHT_PER_NODE for each other value) from which a
 * commit's values are hashed in slices: about 2 ms of canonical text and hash at its cheapest
 * (ASCII strings), far above any ordinary commit.
 */
export const BIG_COMMIT_WEIGHT = 256 * 1024;
/** A number, a literal or a container costs the writer as much as this many string characters. */
const WEIGHT_PER_NODE = 32;

/** Whether the operations `data` (as received: anything) weigh BIG_COMMIT_WEIGHT or more; stops counting there. */
export function isBigCommitData(data: unknown): boolean {
  if (!Array.isArray(data)) return false;
  let left = BIG_COMMIT_WEIGHT;
  for (const op of data) {
    left = weigh((op as { value?: unknown } | null)?.value, left, 0);
    if (left <= 0) return true;
  }
  return false;
}

/** `left` minus the weight of `value`; stops at 0 (and at the nesting limit, which the shape check refuses). */
export function weigh(value: unknown, left: number, depth: number): number {
  if (typeof value === "string") return left - value.length;
  if (value === null || typeof value !== "object" || depth > DEFAULT_LIMITS.jsonDepth) return left - WEIGHT_PER_NODE;
  left -= WEIGHT_PER_NODE;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && left > 0; i++) left = weigh(value[i], left, depth + 1);
    return left;
  }
  // A wide parsed object's remembered names: for-in would list all its keys first, even to stop at one.
  const names = memberNamesOf(value);
  if (names !== undefined) {
    for (let i = 0; i < names.length && left > 0; i++) {
      left = weigh((value as Record<string, unknown>)[names[i]!], left - names[i]!.length, depth + 1);
    }
    return left;
  }
  for (const key in value) {
    if (left <= 0) break;
    left = weigh((value as Record<string, unknown>)[key], left - key.length, depth + 1);
  }
  return left;
}

/** Keys sorted by one native sort between two pauses: a millisecond or two. */
const SORT_RUN = 4 * 1024;
/** Keys merged between two pauses. */
const MERGE_STEPS = 16 * 1024;

/** Whether `a` sorts before `b` as Array.prototype.sort sorts strings: by UTF-16 code units. */
const codeUnitsBefore = (a: string, b: string) => a < b;

/**
 * `keys` sorted by `before` (by default as Array.prototype.sort sorts strings: by UTF-16 code
 * units, which `<` compares too), pausing between pieces: runs of SORT_RUN sorted natively,
 * then merged pairwise. A sort of 400,000 keys in one call held the loop 350-550 ms. `keys`
 * itself is left as it is.
 */
export function* sortInSlices(
  keys: readonly string[],
  before: (a: string, b: string) => boolean = codeUnitsBefore,
): Generator<void, string[], void> {
  const compare =
    before === codeUnitsBefore ? undefined : (a: string, b: string) => (before(a, b) ? -1 : before(b, a) ? 1 : 0);
  let from = keys.slice();
  for (let i = 0; i < from.length; i += SORT_RUN) {
    const run = from.slice(i, i + SORT_RUN).sort(compare);
    for (let j = 0; j < run.length; j++) from[i + j] = run[j]!;
    yield;
  }
  let to: string[] = new Array<string>(from.length);
  let steps = 0;
  for (let width = SORT_RUN; width < from.length; width *= 2) {
    for (let lo = 0; lo < from.length; lo += 2 * width) {
      const mid = Math.min(lo + width, from.length);
      const hi = Math.min(lo + 2 * width, from.length);
      let a = lo;
      let b = mid;
      for (let k = lo; k < hi; k++) {
        to[k] = b >= hi || (a < mid && !before(from[b]!, from[a]!)) ? from[a++]! : from[b++]!;
        if (++steps % MERGE_STEPS === 0) yield;
      }
    }
    [from, to] = [to, from];
  }
  return from;
}

/** The canonical text written so far and not yet hashed. */
export interface Out {
  text: string;
}

/** Whether `c` (UTF-16) is the first half of a surrogate pair. */
const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

/**
 * Writes a number, literal or short string to `o` as canonicalize does; false (nothing
 * written) for a container or a long string, which `write` takes in pieces.
 */
function writeLeaf(o: Out, value: unknown, at: string): boolean {
  switch (typeof value) {
    case "string":
      if (value.length > PIECE_CHARS) return false;
      if (hasLoneSurrogate(value)) throw loneSurrogate(at);
      o.text += JSON.stringify(value);
      return true;
    case "number":
      checkNumber(value, at);
      o.text += JSON.stringify(value);
      return true;
    case "boolean":
      o.text += value ? "true" : "false";
      return true;
    case "object":
      if (value !== null) return false;
      o.text += "null";
      return true;
    default:
      throw nonPlain(value === undefined ? "undefined" : `a ${typeof value}`, at);
  }
}

/**
 * canonicalize's `write` (same text, same first refusal with the pointer its second pass
 * names), pausing once PIECE_CHARS are written. `at` is the pointer in the whole payload.
 */
export function* write(o: Out, value: unknown, depth: number, at: string): Generator<void, void, void> {
  if (writeLeaf(o, value, at)) return;
  if (typeof value === "string") {
    // JSON.stringify escapes each character on its own, so the cuts' texts join into the
    // whole one; a cut never separates the halves of a pair (each half alone is escaped).
    o.text += '"';
    for (let from = 0; from < value.length; ) {
      let to = Math.min(from + PIECE_CHARS, value.length);
      if (to < value.length && isHighSurrogate(value.charCodeAt(to - 1))) to--;
      const part = value.slice(from, to);
      if (hasLoneSurrogate(part)) throw loneSurrogate(at);
      o.text += JSON.stringify(part).slice(1, -1);
      from = to;
      if (o.text.length >= PIECE_CHARS) yield;
    }
    o.text += '"';
    return;
  }
  const maxDepth = DEFAULT_LIMITS.jsonDepth;
  if (depth >= maxDepth) throw tooDeep(maxDepth, at);
  if (Array.isArray(value)) {
    o.text += "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) o.text += ",";
      const child = `${at}/${i}`;
      if (!(i in value)) throw nonPlain("a sparse array", child);
      if (!writeLeaf(o, value[i], child)) yield* write(o, value[i], depth + 1, child);
      if (o.text.length >= PIECE_CHARS) yield;
    }
    o.text += "]";
    return;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    throw nonPlain(`an instance of ${(value as object).constructor?.name ?? "a class"}`, at);
  }
  // A wide parsed object's remembered names are sorted in pieces (Object.keys alone is one piece).
  const own = memberNamesOf(value as object) ?? Object.keys(value as object);
  const keys = own.length <= SORT_RUN ? own.slice().sort() : yield* sortInSlices(own);
  o.text += "{";
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (hasLoneSurrogate(key)) throw loneSurrogate(at);
    if (i > 0) o.text += ",";
    const child = `${at}/${escapePointer(key)}`;
    o.text += `${JSON.stringify(key)}:`;
    const item = (value as Record<string, unknown>)[key];
    if (!writeLeaf(o, item, child)) yield* write(o, item, depth + 1, child);
    if (o.text.length >= PIECE_CHARS) yield;
  }
  o.text += "}";
}

/** commitCanonicalText in pieces: pauses whenever `o` holds PIECE_CHARS or more. */
function* commitText(
  o: Out,
  contractId: string,
  parent: string | null,
  data: readonly Operation[],
): Generator<void, void, void> {
  o.text += `{"contract_id":${canonicalize(contractId)},"data":[`;
  for (let i = 0; i < data.length; i++) {
    const op = data[i]!;
    o.text += `${i > 0 ? "," : ""}{"method":${canonicalize(op.method)}`;
    if (op.path !== undefined) o.text += `,"path":${canonicalize(op.path)}`;
    if (op.value !== undefined) {
      o.text += `,"value":`;
      yield* write(o, op.value, VALUE_DEPTH, `/data/${i}/value`);
    }
    o.text += "}";
    if (o.text.length >= PIECE_CHARS) yield;
  }
  o.text += `],"parent":${parent === null ? "null" : canonicalize(parent)}}`;
}

/**
 * computeCommitHash(contractId, parent, data), or the error it throws (the same code,
 * reason and pointer), computed in pieces with `tick()` between them.
 */
export async function commitHashInSlices(
  contractId: string,
  parent: string | null,
  data: readonly Operation[],
  tick: () => Promise<void> | void,
): Promise<string> {
  return (await hashInSlices((o) => commitText(o, contractId, parent, data), tick)).toString("hex");
}

/** SHA-256 of the text `pieces` writes to its Out, fed piece by piece with `tick()` between pieces. */
export async function hashInSlices(
  pieces: (o: Out) => Generator<void, void, void>,
  tick: () => Promise<void> | void,
): Promise<Buffer> {
  const hash = createHash("sha256");
  const o: Out = { text: "" };
  const writing = pieces(o);
  while (!writing.next().done) {
    hash.update(o.text, "utf8");
    o.text = "";
    await tick();
  }
  return hash.update(o.text, "utf8").digest();
}

/** A commit hashed ahead of its shape check, and what the hash came to. */
interface Prepared {
  contractId: string;
  parent: string | null;
  data: readonly Operation[];
  outcome: string | ContractError;
}

/**
 * Commits hashed ahead and not yet asked for: few, since each is asked for right after (a
 * commit refused before its hash is asked for stays until pushed out, with its values).
 */
const KEPT = 4;
const prepared: Prepared[] = [];

/**
 * Hashes the commit `{contractId, parent, data}` (data normalized as the shape check does) in
 * slices and keeps the outcome for its shape check; a canonicalization refusal is kept too.
 */
export async function prepareCommitHash(
  contractId: string,
  parent: string | null,
  data: readonly Operation[],
  tick: () => Promise<void> | void,
): Promise<void> {
  let outcome: string | ContractError;
  try {
    outcome = await commitHashInSlices(contractId, parent, data, tick);
  } catch (err) {
    if (!(err instanceof ContractError)) throw err;
    outcome = err;
  }
  prepared.push({ contractId, parent, data, outcome });
  if (prepared.length > KEPT) prepared.shift();
}

/**
 * The hash prepared for this commit, or undefined; throws the refusal its hash met. Operations
 * match when their method, path and value are the same (`===`): the very values prepared,
 * which nothing changes between a request's preparation and its shape check. An outcome is
 * handed out once, so it never stands for values that changed later.
 */
export function preparedCommitHash(
  contractId: string,
  parent: string | null,
  data: readonly Operation[],
): string | undefined {
  if (prepared.length === 0) return undefined;
  for (let k = prepared.length - 1; k >= 0; k--) {
    const p = prepared[k]!;
    if (p.contractId !== contractId || p.parent !== parent || !sameOperations(p.data, data)) continue;
    prepared.splice(k, 1);
    if (typeof p.outcome === "string") return p.outcome;
    throw p.outcome;
  }
  return undefined;
}

function sameOperations(a: readonly Operation[], b: readonly Operation[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.method !== y.method || x.path !== y.path || x.value !== y.value) return false;
  }
  return true;
}
