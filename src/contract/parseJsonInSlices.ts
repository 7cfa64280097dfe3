/**
 * safeJsonParse for texts too big to parse in one go on the event loop: the same value, the
 * same refusals, but the work comes in pieces with `tick()` between them, so the caller can
 * yield (and charge the time) while a 16 MiB body is read. JSON.parse takes 1–2 s over 16 MiB
 * of tiny values (`[[[]]],` repeated, a million one-character members); cut into pieces of
 * bounded weight (planJsonPieces.ts), no piece holds the loop for more than a few
 * milliseconds. A text whose top-level value is not heavy is one piece: the plain path.
 *
 * A heavy container is rebuilt from its pieces: each run of light children is parsed as
 * `[…]` or `{…}` of its own (valid exactly when the container's text is, since the runs lie
 * between its own commas) and checked as safeJsonParse checks its value, with JSON pointers
 * that count from the container; a heavy child is rebuilt the same way.
 */

import { ContractError } from "./ContractError.js";
import {
  checkParsed,
  escapePointer,
  forbiddenKey,
  hasLoneSurrogate,
  loneSurrogate,
  type ParseLimits,
} from "./canonicalJson.js";
import { DEFAULT_LIMITS } from "./limits.js";
import { rememberMemberNames, WIDE_OBJECT } from "./memberNames.js";
import { type HeavyNode, hasText, JsonPlanner, PIECE_LIMITS, type Piece, type PieceLimits } from "./planJsonPieces.js";
import { DuplicateScan, duplicateKeyError } from "./scanJsonText.js";

/**
 * Characters scanned between two ticks: about 10 ms of the planner's scan at its slowest
 * (every character a bracket); a duplicate scan is faster per character.
 */
const SCAN_STRETCH = 128 * 1024;

/** A position in the text where it stops being JSON. */
function syntaxAt(position: number, what: string): ContractError {
  return new ContractError("INVALID_REQUEST", `Cannot parse JSON: ${what} at position ${position}`, {
    reason: "json_syntax",
    position,
  });
}

/** JSON.parse of a piece's text; a syntax error's position is moved to the whole text's. */
function parsePiece(text: string, offset: number): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const match = /position (\d+)/.exec(message);
    if (match === null) throw syntaxAt(offset, "the text is not JSON");
    const position = offset + Number(match[1]);
    throw syntaxAt(position, message.replace(/ in JSON at position \d+.*$/s, "").slice(0, 200));
  }
}

interface Build {
  text: string;
  tick: () => Promise<void>;
  /** Own keys of the objects built so far; a duplicate shows as fewer than the text's members. */
  keys: { count: number };
  /** Set when a member of a heavy object appeared in two of its pieces. */
  duplicate: boolean;
  /**
   * The first value a check refused. Reported once every piece parsed: text that is not
   * JSON is a syntax error first, as in safeJsonParse, whose checks follow its JSON.parse.
   */
  failed: ContractError | null;
}

/** How parseJsonInSlices shares the thread. */
export interface SlicedWork {
  /** Called between pieces of work: yields to others when due (and charges the time). */
  tick(): Promise<void>;
  /**
   * Waits for the turn to rebuild a heavy value, resolving to the turn's release. A heavy
   * value costs memory while it is rebuilt (300 MB for 16 MiB of `[[…]]`), and one parse
   * in slices no longer excludes another as one in a single call did: taking turns keeps
   * that memory to one rebuild at a time.
   */
  turn?(): Promise<() => void>;
  /** The sizes of pieces (tests make them tiny, to cut small texts). */
  pieces?: PieceLimits;
}

/** Parses `text` as safeJsonParse does, in pieces with `work.tick()` between them. */
export async function parseJsonInSlices(text: string, limits: ParseLimits, work: SlicedWork): Promise<unknown> {
  const tick = () => work.tick();
  const maxDepth = limits.maxDepth ?? DEFAULT_LIMITS.jsonDepth;
  if (limits.maxLength !== undefined && text.length > limits.maxLength) {
    throw new ContractError(
      "PAYLOAD_TOO_LARGE",
      `Cannot parse JSON: text is longer than the limit of ${limits.maxLength}`,
      { reason: "json_too_long", limit: limits.maxLength },
    );
  }
  const planner = new JsonPlanner(text, maxDepth, work.pieces ?? PIECE_LIMITS, limits.maxContainers);
  for (let at = SCAN_STRETCH; !planner.done; at += SCAN_STRETCH) {
    planner.run(at);
    if (!planner.done) await tick();
  }
  const plan = planner.finish();
  if (plan.broken !== null) throw plan.broken;
  if (plan.root === null) {
    // One piece: a light value, or text that stops being JSON right after a light value.
    const value = parsePiece(text, 0);
    await checkWhole(text, maxDepth, value, plan.members, tick);
    return value;
  }
  const root = plan.root;
  if (hasText(text, root.end + 1, text.length)) throw syntaxAt(root.end + 1, "more text after the JSON value");
  const build: Build = { text, tick, keys: { count: 0 }, duplicate: false, failed: null };
  const release = work.turn === undefined ? () => {} : await work.turn();
  let value: unknown;
  try {
    value = await rebuild(build, root, "");
  } finally {
    release();
  }
  // A duplicate member is reported before what the checks found, as safeJsonParse does.
  if (build.failed !== null || build.duplicate || build.keys.count !== plan.members) {
    await throwDuplicate(text, maxDepth, tick);
  }
  if (build.failed !== null) throw build.failed;
  return value;
}

/** The checks of a value parsed in one piece (safeJsonParse's, after its JSON.parse). */
async function checkWhole(text: string, maxDepth: number, value: unknown, members: number, tick: () => Promise<void>) {
  const keys = { count: 0 };
  try {
    checkParsed(value, null, keys);
  } catch (err) {
    await throwDuplicate(text, maxDepth, tick);
    if (err instanceof ContractError) checkParsed(value, "", keys);
    throw err;
  }
  if (keys.count !== members) await throwDuplicate(text, maxDepth, tick);
}

/** Throws duplicate_key naming the first duplicate member of `text`, if it has one. */
async function throwDuplicate(text: string, maxDepth: number, tick: () => Promise<void>): Promise<void> {
  const scan = new DuplicateScan(text, maxDepth);
  for (let at = SCAN_STRETCH; !scan.done; at += SCAN_STRETCH) {
    scan.run(at);
    if (!scan.done) await tick();
  }
  if (scan.duplicate !== null) throw duplicateKeyError(scan.duplicate);
}

/** The value of the heavy container `node`, whose JSON pointer is `at`. */
async function rebuild(b: Build, node: HeavyNode, at: string): Promise<unknown> {
  const out: unknown = node.object ? {} : [];
  // An object's names as they come: a wide one's are remembered (memberNames.ts).
  const names: string[] | null = node.object ? [] : null;
  for (const piece of node.pieces) {
    await b.tick();
    if (piece.node === undefined) addLight(b, node, piece, out, at, names);
    else await addHeavy(b, piece, piece.node, out, at, names);
  }
  if (names !== null && names.length >= WIDE_OBJECT) rememberMemberNames(out as object, names);
  return out;
}

/** Adds a run of light children to `out`, checked with their pointers. */
function addLight(b: Build, node: HeavyNode, piece: Piece, out: unknown, at: string, names: string[] | null): void {
  const inner = b.text.slice(piece.from, piece.to);
  if (!hasText(inner, 0, inner.length)) throw syntaxAt(piece.to, "an empty element or member");
  const open = node.object ? "{" : "[";
  const close = node.object ? "}" : "]";
  const value = parsePiece(`${open}${inner}${close}`, piece.from - 1);
  if (Array.isArray(out)) {
    const items = value as unknown[];
    const first = out.length;
    for (let i = 0; i < items.length; i++) {
      check(b, items[i], at, first + i);
      out.push(items[i]);
    }
    return;
  }
  const members = value as Record<string, unknown>;
  const target = out as Record<string, unknown>;
  for (const key of Object.keys(members)) addMember(b, target, key, members[key], at, names!);
}

/** Adds one heavy child (an element, or a member with its name) to `out`. */
async function addHeavy(b: Build, piece: Piece, child: HeavyNode, out: unknown, at: string, names: string[] | null) {
  if (hasText(b.text, child.end + 1, piece.to)) throw syntaxAt(child.end + 1, "more text after a value");
  if (Array.isArray(out)) {
    if (hasText(b.text, piece.from, child.start)) throw syntaxAt(piece.from, "more text before a value");
    out.push(await rebuild(b, child, `${at}/${out.length}`));
    return;
  }
  // `"name" :` before the value: parsed with a stand-in value, which validates it too once
  // the colon is known to be last (`"name": 1` + `0` would parse as well).
  const name = b.text.slice(piece.from, child.start).trimEnd();
  if (!name.endsWith(":")) throw syntaxAt(piece.from + name.length - 1, "a member name without its colon");
  const named = parsePiece(`{${name}0}`, piece.from - 1) as Record<string, unknown>;
  const [key] = Object.keys(named);
  if (key === undefined) throw syntaxAt(piece.from, "a member without a name");
  const target = out as Record<string, unknown>;
  const value = await rebuild(b, child, `${at}/${escapePointer(key)}`);
  if (keyAllowed(b, target, key, at, names!)) target[key] = value;
}

function addMember(
  b: Build,
  target: Record<string, unknown>,
  key: string,
  value: unknown,
  at: string,
  names: string[],
): void {
  if (!keyAllowed(b, target, key, at, names)) return;
  check(b, value, at, key);
  target[key] = value;
}

/**
 * The checks of a member name, counted as one member (and added to `names` the first time);
 * false for `__proto__`, which is refused and never assigned (an assignment would set the
 * object's prototype).
 */
function keyAllowed(b: Build, target: Record<string, unknown>, key: string, at: string, names: string[]): boolean {
  b.keys.count++;
  if (key === "__proto__") {
    b.failed ??= forbiddenKey(at);
    return false;
  }
  if (hasLoneSurrogate(key)) b.failed ??= loneSurrogate(at);
  if (Object.hasOwn(target, key)) b.duplicate = true;
  else names.push(key);
  return true;
}

/**
 * checkParsed of a light value until one fails; its pointer (`at` and the index or name
 * within) is built only then.
 */
function check(b: Build, value: unknown, at: string, within: number | string): void {
  if (b.failed !== null) return;
  try {
    checkParsed(value, null, b.keys);
  } catch (err) {
    if (!(err instanceof ContractError)) throw err;
    const pointer = `${at}/${typeof within === "number" ? within : escapePointer(within)}`;
    try {
      checkParsed(value, pointer, { count: 0 });
    } catch (located) {
      b.failed = located as ContractError;
      return;
    }
    b.failed = err;
  }
}
