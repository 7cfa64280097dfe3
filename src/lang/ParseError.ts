/**
 * Expected-item descriptions that name a class of tokens rather than a literal token; every
 * other `expected` entry is literal source text and is quoted in messages.
 */
const DESCRIPTIONS = new Set([
  "argument",
  "commit hash",
  "end of input",
  "escape sequence",
  "formula expression",
  "formula name",
  "identifier",
  "model name",
  "part name",
  "property",
  "property name",
  "rule name",
  "state name",
  "variable name",
]);

/** What `got` holds when the input ended. */
export const END_OF_INPUT = "end of input";

function describe(item: string): string {
  return DESCRIPTIONS.has(item) || item.startsWith("at most ") ? item : JSON.stringify(item);
}

function describeList(items: readonly string[]): string {
  const shown = items.map(describe);
  if (shown.length <= 1) return shown.join("");
  return `${shown.slice(0, -1).join(", ")} or ${shown[shown.length - 1]}`;
}

/**
 * The only error the language front end throws. `line` and `column` are 1-based (columns count
 * UTF-16 code units, as editors and LSP do); `expected` lists literal tokens or descriptions
 * (`"state name"`); `got` is the offending source text or `"end of input"`.
 */
export class ParseError extends Error {
  override readonly name = "ParseError";
  readonly line: number;
  readonly column: number;
  readonly expected: string[];
  readonly got: string;

  constructor(line: number, column: number, expected: string[], got: string, context?: string) {
    const gotText = got === END_OF_INPUT ? got : JSON.stringify(got);
    super(`${line}:${column}: expected ${describeList(expected)}${context ? ` ${context}` : ""}, got ${gotText}`);
    this.line = line;
    this.column = column;
    this.expected = expected;
    this.got = got;
  }
}
