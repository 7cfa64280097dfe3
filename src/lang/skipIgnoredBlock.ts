import type { TokenCursor } from "./TokenCursor.js";

/**
 * Top-level blocks of the reference grammar that describe nothing the hub uses: `action NAME
 * { … }`, `test [NAME] { … }`, `contract NAME { … }` and `rule_for_this_commit { … }`. The
 * reference parses and discards them, and its example files contain them, so we accept and
 * discard them too: the block's tokens are skipped up to its matching brace. The words stay
 * ordinary names (a state may be called `test`); only the block shape makes them a block.
 */
export function skipIgnoredBlock(c: TokenCursor): boolean {
  const word = c.tok.kind === "ident" ? c.tok.text : "";
  const after = c.peek();
  const named = after.kind === "ident";
  const opens =
    (word === "rule_for_this_commit" && after.kind === "{") ||
    ((word === "action" || word === "contract") && named) ||
    (word === "test" && (named || after.kind === "{"));
  if (!opens) return false;
  c.next();
  if (named && word !== "rule_for_this_commit") c.next();
  c.expect("{", `after "${word}"`);
  let depth = 1;
  while (depth > 0) {
    if (c.atEnd) c.fail(["}"], `closing the "${word}" block`);
    const t = c.next();
    if (t.kind === "{") depth++;
    else if (t.kind === "}") depth--;
  }
  return true;
}
