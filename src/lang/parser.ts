/**
 * The language front end's public entry points (docs/language.md). Every failure, whatever the
 * input, is a ParseError with a 1-based line and column.
 */
import type { Formula, FormulaDecl, ModelDecl, Pos, RuleDecl, SourceFile } from "./ast.js";
import { END_OF_INPUT, ParseError } from "./ParseError.js";
import { readFormula } from "./readFormula.js";
import { readModel } from "./readModel.js";
import { readRule } from "./readRule.js";
import { runSteps, type Steps } from "./Steps.js";
import { skipIgnoredBlock } from "./skipIgnoredBlock.js";
import { KEYWORDS } from "./Token.js";
import { TokenCursor } from "./TokenCursor.js";

export { ParseError } from "./ParseError.js";
export { MAX_FORMULA_DEPTH } from "./readFormula.js";

type Item = SourceFile["items"][number];

/** An item with the text of its first token, for errors about items in the wrong place. */
interface Located {
  item: Item;
  first: string;
}

const FORMULA_START_WORDS = new Set(["true", "false", "not", "lfp", "gfp", "always", "eventually", "next", "until"]);
const FORMULA_START_PUNCT = new Set(["!", "(", "<", "[", "μ", "ν", "◇", "□"]);

function startsFormula(c: TokenCursor): boolean {
  const t = c.tok;
  if (t.kind === "ident") return !KEYWORDS.has(t.text) || FORMULA_START_WORDS.has(t.text);
  return FORMULA_START_PUNCT.has(t.kind);
}

/** A whole formula expression, run under a fresh nesting count. */
function readTopFormula(c: TokenCursor): Formula {
  c.nesting = 0;
  return readFormula(c);
}

function* readItem(c: TokenCursor): Steps<Item> {
  const pos: Pos = c.pos();
  if (c.isWord("model")) {
    c.next();
    return yield* readModel(c, pos, c.name("model name", 'after "model"'), "named");
  }
  if (c.isWord("export")) {
    c.next();
    c.expectWord("default", 'after "export"');
    if (c.isWord("model")) {
      c.next();
      return yield* readModel(c, pos, "default", "export-default");
    }
    if (!c.isWord("rule")) c.fail(["model", "rule"], 'after "export default"');
    c.next();
    return readRule(c, pos, "export-default", null);
  }
  if (c.isWord("rule")) {
    c.next();
    return readRule(c, pos, "named", c.name("rule name", 'after "rule"'));
  }
  if (c.isWord("formula")) {
    c.next();
    const name = c.name("formula name", 'after "formula"');
    c.expect("{", "after formula name");
    const formula = readTopFormula(c);
    c.expect("}", "after the formula");
    return { kind: "formula", name, formula, pos } satisfies FormulaDecl;
  }
  if (startsFormula(c)) {
    const formula = readTopFormula(c);
    return { kind: "rule", envelope: "bare", name: null, startingAt: null, formulaName: null, formula, pos };
  }
  return c.fail(["model", "export", "formula", "rule", "formula expression"]);
}

function* readItems(text: string): Steps<{ items: Located[]; end: Pos }> {
  const c = new TokenCursor(text);
  const items: Located[] = [];
  while (!c.atEnd) {
    if (skipIgnoredBlock(c)) continue;
    const first = c.tok.text;
    items.push({ item: yield* readItem(c), first });
  }
  return { items, end: c.pos() };
}

function misplaced(at: Located, expected: string[], context: string): ParseError {
  const { line, column } = at.item.pos;
  return new ParseError(line, column, expected, at.first, context);
}

/** Parses any number of models, `formula NAME { … }` declarations and rules (envelopes or bare formulas). */
export function parseSource(text: string): SourceFile {
  return { items: runSteps(readItems(text)).items.map((l) => l.item) };
}

/** Parses a text that holds exactly one model (and nothing else but comments). */
export function parseModel(text: string): ModelDecl {
  return runSteps(parseModelSteps(text));
}

/** `parseModel`, pausing between pieces of a long model (see Steps.ts). */
export function* parseModelSteps(text: string): Steps<ModelDecl> {
  const { items, end } = yield* readItems(text);
  const first = items[0];
  if (first === undefined)
    throw new ParseError(end.line, end.column, ["model", "export"], END_OF_INPUT, "(no model found)");
  if (first.item.kind !== "model") throw misplaced(first, ["model", "export"], "(the text must hold one model)");
  const extra = items[1];
  if (extra !== undefined) throw misplaced(extra, ["end of input"], "after the model (the text must hold one model)");
  return first.item;
}

/** Parses a source text and returns its models in order, ignoring formulas and rules. */
export function parseModels(text: string): ModelDecl[] {
  return parseSource(text).items.filter((i): i is ModelDecl => i.kind === "model");
}

/** Parses one formula expression (no `formula NAME { }` wrapper). */
export function parseFormula(text: string): Formula {
  const c = new TokenCursor(text);
  const f = readTopFormula(c);
  if (!c.atEnd) c.fail(["end of input"], "after the formula");
  return f;
}

/** Parses one rule: an `export default rule { … }` or `rule NAME { … }` envelope, or a bare formula. */
export function parseRule(text: string): RuleDecl {
  const { items, end } = runSteps(readItems(text));
  const first = items[0];
  const ruleStart = ["rule", "export", "formula expression"];
  if (first === undefined) throw new ParseError(end.line, end.column, ruleStart, END_OF_INPUT, "(no rule found)");
  if (first.item.kind !== "rule") throw misplaced(first, ruleStart, "(the text must hold one rule)");
  const extra = items[1];
  if (extra !== undefined) throw misplaced(extra, ["end of input"], "after the rule (the text must hold one rule)");
  return first.item;
}
