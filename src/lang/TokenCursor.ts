import type { Pos } from "./ast.js";
import { Lexer } from "./lexer.js";
import { END_OF_INPUT, ParseError } from "./ParseError.js";
import { KEYWORDS, type Token, type TokenKind } from "./Token.js";

const MAX_GOT = 32;

/** The parser's view of the token stream: one current token, one token of lookahead. */
export class TokenCursor {
  tok: Token;
  private ahead: Token | null = null;
  private readonly lexer: Lexer;
  /** Depth (in tree levels) of the formula the last formula reader returned. */
  lastDepth = 0;
  /** How many atom readers are active; bounds the recursion whatever the input. */
  nesting = 0;

  constructor(text: string) {
    this.lexer = new Lexer(text);
    this.tok = this.lexer.next();
  }

  /** The token after the current one. */
  peek(): Token {
    this.ahead ??= this.lexer.next();
    return this.ahead;
  }

  /** Consumes and returns the current token. */
  next(): Token {
    const t = this.tok;
    if (this.ahead !== null) {
      this.tok = this.ahead;
      this.ahead = null;
    } else {
      this.tok = this.lexer.next();
    }
    return t;
  }

  is(kind: TokenKind): boolean {
    return this.tok.kind === kind;
  }

  /** True when the current token is the word `w` (keyword or identifier). */
  isWord(w: string): boolean {
    return this.tok.kind === "ident" && this.tok.text === w;
  }

  /** True when the current token is an identifier that is not a keyword. */
  isName(): boolean {
    return this.tok.kind === "ident" && !KEYWORDS.has(this.tok.text);
  }

  get atEnd(): boolean {
    return this.tok.kind === "eof";
  }

  pos(): Pos {
    return { line: this.tok.line, column: this.tok.column };
  }

  /** Consumes a punctuation token of the given kind or fails naming it. */
  expect(kind: TokenKind, context?: string): Token {
    if (this.tok.kind !== kind) this.fail([kind], context);
    return this.next();
  }

  /** Consumes the word `w` or fails naming it. */
  expectWord(w: string, context?: string): Token {
    if (!this.isWord(w)) this.fail([w], context);
    return this.next();
  }

  /** Consumes a non-keyword identifier; `what` describes it in the error ("state name"). */
  name(what: string, context?: string): string {
    if (!this.isName()) this.fail([what], context);
    return this.next().text;
  }

  /** Throws a ParseError at the current token. */
  fail(expected: string[], context?: string): never {
    this.failAt(this.tok, expected, context);
  }

  /** Throws a ParseError at `t`. */
  failAt(t: Token, expected: string[], context?: string): never {
    throw new ParseError(t.line, t.column, expected, gotText(t), context);
  }
}

/** What a ParseError shows for a token. */
function gotText(t: Token): string {
  if (t.kind === "eof") return END_OF_INPUT;
  return t.text.length > MAX_GOT ? `${t.text.slice(0, MAX_GOT)}…` : t.text;
}
