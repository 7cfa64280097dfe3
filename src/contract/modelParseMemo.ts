/**
 * The outcome of parsing each of the last few big model texts. Parsing a model of 10^5
 * transitions takes a few hundred milliseconds, and one request's text is parsed up to three
 * times (the syntax check of the commit's shape, the compile, a second shape check on push);
 * the hub parses a big text once, in slices (`parseModelSliced`), and every later parse of
 * the same text is a lookup. Small texts are parsed each time (cheaper than remembering).
 */
import type { ModelDecl } from "../lang/ast.js";
import { ParseError, parseModelSteps } from "../lang/parser.js";
import { runSteps, runStepsAsync, type Steps } from "../lang/Steps.js";

/** Texts at least this long (in characters) are remembered. */
export const MEMO_MIN_CHARS = 16 * 1024;
const KEPT = 4;
/**
 * How long an outcome is kept: long enough for the request that parsed it (and a retry), not
 * so long that the syntax trees of big texts (tens of MB for a 1 MiB model) stay for nothing.
 */
const KEPT_MS = 30_000;
/** Keyed by the text itself: a Map compares strings by content. */
const memo = new Map<string, { outcome: ModelDecl | ParseError; expiry: NodeJS.Timeout }>();

function remember(text: string, outcome: ModelDecl | ParseError): void {
  if (text.length < MEMO_MIN_CHARS) return;
  forget(text);
  const expiry = setTimeout(() => forget(text), KEPT_MS).unref();
  memo.set(text, { outcome, expiry });
  if (memo.size > KEPT) forget(memo.keys().next().value!);
}

function forget(text: string): void {
  const entry = memo.get(text);
  if (entry === undefined) return;
  clearTimeout(entry.expiry);
  memo.delete(text);
}

/** `parseModelSteps` through the memo: a remembered text costs no steps. */
export function* parseModelMemoSteps(text: string): Steps<ModelDecl> {
  const known = memo.get(text)?.outcome;
  if (known instanceof ParseError) throw known;
  if (known !== undefined) return known;
  let decl: ModelDecl;
  try {
    decl = yield* parseModelSteps(text);
  } catch (err) {
    if (err instanceof ParseError) remember(text, err);
    throw err;
  }
  remember(text, decl);
  return decl;
}

/** `parseModel` through the memo (throws the ParseError a remembered text failed with). */
export function parseModelMemo(text: string): ModelDecl {
  return runSteps(parseModelMemoSteps(text));
}

/**
 * Parses `text` in slices, awaiting `tick` between them, so that the synchronous parses of
 * it that follow find it remembered. A text that does not parse is remembered with its
 * error; nothing is thrown for it here.
 */
export async function parseModelSliced(text: string, tick: () => Promise<void> | void): Promise<void> {
  try {
    await runStepsAsync(parseModelMemoSteps(text), tick);
  } catch (err) {
    if (!(err instanceof ParseError)) throw err;
  }
}
