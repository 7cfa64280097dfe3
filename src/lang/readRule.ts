import type { Pos, RuleDecl } from "./ast.js";
import { readFormula } from "./readFormula.js";
import type { TokenCursor } from "./TokenCursor.js";

const HASH = /^[0-9a-fA-F]{64}$/;

function readAnchor(c: TokenCursor): string {
  const t = c.tok;
  if (t.kind === "dollar" && t.text === "$PARENT") return c.next().text;
  if ((t.kind === "ident" || t.kind === "number" || t.kind === "hexword") && HASH.test(t.text)) {
    return c.next().text.toLowerCase();
  }
  return c.fail(["$PARENT", "commit hash"], 'after "starting_at"');
}

/** Reads a rule envelope from its `{` on; the header (`rule NAME` or `export default rule`) is read by the caller. */
export function readRule(
  c: TokenCursor,
  pos: Pos,
  envelope: "named" | "export-default",
  name: string | null,
): RuleDecl {
  c.expect("{", envelope === "named" ? "after rule name" : 'after "rule"');
  let startingAt: string | null = null;
  if (c.isWord("starting_at")) {
    c.next();
    startingAt = readAnchor(c);
  }
  if (!c.isWord("formula")) c.fail(startingAt === null ? ["starting_at", "formula"] : ["formula"], "in rule");
  c.next();
  const formulaName = c.isName() ? c.next().text : null;
  if (!c.is("{")) c.fail(formulaName === null ? ["formula name", "{"] : ["{"], 'after "formula"');
  c.next();
  c.nesting = 0;
  const formula = readFormula(c);
  c.expect("}", "after the formula");
  c.expect("}", "to close the rule");
  return { kind: "rule", envelope, name, startingAt, formulaName, formula, pos };
}
