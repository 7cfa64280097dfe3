import { END_OF_INPUT, ParseError } from "./ParseError.js";
import type { Punct, Token } from "./Token.js";

enum Ch {
  Tab = 9,
  Lf = 10,
  Vt = 11,
  Ff = 12,
  Cr = 13,
  Space = 32,
  Quote = 34,
  Dollar = 36,
  Star = 42,
  Minus = 45,
  Dot = 46,
  Slash = 47,
  D0 = 48,
  D9 = 57,
  Gt = 62,
  UpperA = 65,
  UpperZ = 90,
  Backslash = 92,
  Underscore = 95,
  LowerA = 97,
  LowerZ = 122,
}

const SINGLE_PUNCT: Readonly<Record<string, Punct>> = {
  "{": "{",
  "}": "}",
  "[": "[",
  "]": "]",
  "(": "(",
  ")": ")",
  "<": "<",
  ">": ">",
  ",": ",",
  ":": ":",
  ".": ".",
  "+": "+",
  "!": "!",
  "|": "|",
  "&": "&",
  μ: "μ",
  ν: "ν",
  "◇": "◇",
  "□": "□",
};

/** Characters that end an invalid-text run, so `=>` is reported whole but `;)` only as `;`. */
const INVALID_RUN_STOP = new Set(["{", "}", "[", "]", "(", ")", '"', ",", "+"]);
const MAX_SHOWN = 32;

function isIdentStart(c: number): boolean {
  return (c >= Ch.LowerA && c <= Ch.LowerZ) || (c >= Ch.UpperA && c <= Ch.UpperZ) || c === Ch.Underscore;
}

function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= Ch.D0 && c <= Ch.D9);
}

function isPathChar(c: number): boolean {
  return isIdentPart(c) || c === Ch.Dot || c === Ch.Minus || c === Ch.Slash;
}

function isSpace(c: number): boolean {
  if (c === Ch.Space || (c >= Ch.Tab && c <= Ch.Cr)) return true;
  return c > 127 && (c === 0xfeff || /\s/.test(String.fromCharCode(c)));
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

/**
 * Turns source text into tokens on demand. Comments and whitespace are skipped here, so the
 * parser never sees them; text that starts no token becomes an `invalid` token for the parser
 * to report with what it expected at that point.
 */
export class Lexer {
  private readonly src: string;
  private pos = 0;
  private line = 1;
  private lineStart = 0;

  constructor(src: string) {
    this.src = src;
  }

  /** Returns the next token (an `eof` token at the end, repeatedly). */
  next(): Token {
    this.skipTrivia();
    const src = this.src;
    const start = this.pos;
    if (start >= src.length) return this.token("eof", start, "", "");
    const c = src.charCodeAt(start);
    if (isIdentStart(c)) {
      let i = start + 1;
      while (i < src.length && isIdentPart(src.charCodeAt(i))) i++;
      return this.word("ident", start, i);
    }
    if (c >= Ch.D0 && c <= Ch.D9) {
      let i = start + 1;
      let digits = true;
      for (; i < src.length; i++) {
        const d = src.charCodeAt(i);
        if (!isIdentPart(d)) break;
        if (d < Ch.D0 || d > Ch.D9) digits = false;
      }
      return this.word(digits ? "number" : "hexword", start, i);
    }
    if (c === Ch.Quote) return this.string(start);
    if (c === Ch.Slash && start + 1 < src.length && isPathChar(src.charCodeAt(start + 1))) {
      let i = start + 1;
      while (i < src.length && isPathChar(src.charCodeAt(i))) i++;
      return this.word("path", start, i);
    }
    if (c === Ch.Minus) {
      if (src.charCodeAt(start + 1) === Ch.Minus && src.charCodeAt(start + 2) === Ch.Gt)
        return this.word("-->", start, start + 3);
      if (src.charCodeAt(start + 1) === Ch.Gt) return this.word("->", start, start + 2);
      return this.word("-", start, start + 1);
    }
    if (c === Ch.Dollar && start + 1 < src.length && isIdentStart(src.charCodeAt(start + 1))) {
      let i = start + 2;
      while (i < src.length && isIdentPart(src.charCodeAt(i))) i++;
      return this.word("dollar", start, i);
    }
    const punct = SINGLE_PUNCT[src[start]!];
    if (punct !== undefined) return this.word(punct, start, start + 1);
    return this.invalid(start);
  }

  private token(kind: Token["kind"], start: number, text: string, value: string): Token {
    return { kind, text, value, offset: start, line: this.line, column: start - this.lineStart + 1 };
  }

  private word(kind: Token["kind"], start: number, end: number): Token {
    const text = this.src.slice(start, end);
    this.pos = end;
    return this.token(kind, start, text, text);
  }

  private invalid(start: number): Token {
    const src = this.src;
    // Take the whole code point so a stray emoji is shown intact.
    let i = start + (src.codePointAt(start)! > 0xffff ? 2 : 1);
    while (i < src.length && i - start < MAX_SHOWN) {
      const d = src.charCodeAt(i);
      if (isSpace(d) || isIdentPart(d) || d > 127 || INVALID_RUN_STOP.has(src[i]!)) break;
      i++;
    }
    return this.word("invalid", start, i);
  }

  private newline(at: number): void {
    this.line++;
    this.lineStart = at + 1;
  }

  private fail(expected: string[], got: string, context: string, at = this.pos): never {
    throw new ParseError(this.line, at - this.lineStart + 1, expected, got, context);
  }

  private skipTrivia(): void {
    const src = this.src;
    let i = this.pos;
    while (i < src.length) {
      const c = src.charCodeAt(i);
      if (c === Ch.Lf) {
        this.newline(i);
        i++;
      } else if (c === Ch.Cr) {
        if (src.charCodeAt(i + 1) === Ch.Lf) i++;
        this.newline(i);
        i++;
      } else if (isSpace(c)) {
        i++;
      } else if (c === Ch.Slash && src.charCodeAt(i + 1) === Ch.Slash) {
        i += 2;
        while (i < src.length && src.charCodeAt(i) !== Ch.Lf && src.charCodeAt(i) !== Ch.Cr) i++;
      } else if (c === Ch.Slash && src.charCodeAt(i + 1) === Ch.Star) {
        const openLine = this.line;
        const openColumn = i - this.lineStart + 1;
        i += 2;
        for (;;) {
          if (i >= src.length) {
            this.pos = i;
            this.fail(["*/"], END_OF_INPUT, `to close the comment opened at ${openLine}:${openColumn}`);
          }
          const d = src.charCodeAt(i);
          if (d === Ch.Star && src.charCodeAt(i + 1) === Ch.Slash) {
            i += 2;
            break;
          }
          if (d === Ch.Lf || (d === Ch.Cr && src.charCodeAt(i + 1) !== Ch.Lf)) this.newline(i);
          i++;
        }
      } else {
        break;
      }
    }
    this.pos = i;
  }

  private string(start: number): Token {
    const src = this.src;
    const line = this.line;
    const column = start - this.lineStart + 1;
    let value = "";
    let chunk = start + 1;
    let i = start + 1;
    for (;;) {
      if (i >= src.length) {
        this.pos = i;
        this.fail(['"'], END_OF_INPUT, `to close the string opened at ${line}:${column}`);
      }
      const c = src.charCodeAt(i);
      if (c === Ch.Quote) break;
      if (c === Ch.Backslash) {
        value += src.slice(chunk, i);
        const e = src[i + 1] ?? "";
        const simple = SIMPLE_ESCAPES[e];
        if (simple !== undefined) {
          value += simple;
          i += 2;
        } else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(src.slice(i + 2, i + 6))) {
          value += String.fromCharCode(Number.parseInt(src.slice(i + 2, i + 6), 16));
          i += 6;
        } else {
          this.fail(["escape sequence"], src.slice(i, i + 2) || END_OF_INPUT, "in string", i);
        }
        chunk = i;
        continue;
      }
      if (c === Ch.Lf || (c === Ch.Cr && src.charCodeAt(i + 1) !== Ch.Lf)) this.newline(i);
      i++;
    }
    value += src.slice(chunk, i);
    this.pos = i + 1;
    return { kind: "string", text: src.slice(start, i + 1), value, offset: start, line, column };
  }
}
