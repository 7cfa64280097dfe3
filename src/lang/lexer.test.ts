import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Lexer } from "./lexer.js";
import type { Token } from "./Token.js";

function tokens(text: string): Token[] {
  const lexer = new Lexer(text);
  const out: Token[] = [];
  for (let t = lexer.next(); t.kind !== "eof"; t = lexer.next()) out.push(t);
  return out;
}

const kinds = (text: string) => tokens(text).map((t) => `${t.kind}:${t.value}`);

describe("Lexer", () => {
  test("arrows and minus take the longest match", () => {
    assert.deepEqual(kinds("a-->b->c -d --"), [
      "ident:a",
      "-->:-->",
      "ident:b",
      "->:->",
      "ident:c",
      "-:-",
      "ident:d",
      "-:-",
      "-:-",
    ]);
  });
  test("words, numbers, digit-first words, paths and anchors", () => {
    assert.deepEqual(kinds("next_step 42 0abc /a-b/c.d_e $PARENT"), [
      "ident:next_step",
      "number:42",
      "hexword:0abc",
      "path:/a-b/c.d_e",
      "dollar:$PARENT",
    ]);
  });
  test("comments are skipped, including a comment right after a path", () => {
    assert.deepEqual(kinds("a // x\n/* y\n */ b /p//c\n"), ["ident:a", "ident:b", "path:/p//c"]);
    assert.deepEqual(kinds("(/p)// c"), ["(:(", "path:/p", "):)"]);
  });
  test("strings decode JSON escapes and keep their source text", () => {
    const [t] = tokens('"a\\"\\u0041\\n"');
    assert.deepEqual([t!.kind, t!.value, t!.text], ["string", 'a"A\n', '"a\\"\\u0041\\n"']);
  });
  test("Unicode operators are tokens", () => {
    assert.deepEqual(
      tokens("μ ν ◇ □").map((t) => t.kind),
      ["μ", "ν", "◇", "□"],
    );
  });
  test("text that starts no token becomes one invalid token", () => {
    assert.deepEqual(kinds("=> ;) @x"), ["invalid:=>", "invalid:;", "):)", "invalid:@", "ident:x"]);
  });
  test("positions are 1-based and follow LF, CRLF and CR line ends", () => {
    assert.deepEqual(
      tokens("a\n  b\r\nc\rd").map((t) => [t.line, t.column]),
      [
        [1, 1],
        [2, 3],
        [3, 1],
        [4, 1],
      ],
    );
  });
  test("a multi-line string starts where its quote is", () => {
    const [s, after] = tokens('  "x\ny" z');
    assert.deepEqual([s!.line, s!.column, after!.line, after!.column], [1, 3, 2, 4]);
  });
});
