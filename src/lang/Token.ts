/** Punctuation and operator tokens; a punctuation token's kind is its text. */
export type Punct =
  | "{"
  | "}"
  | "["
  | "]"
  | "("
  | ")"
  | "<"
  | ">"
  | ","
  | ":"
  | "."
  | "+"
  | "-"
  | "!"
  | "|"
  | "&"
  | "->"
  | "-->"
  | "μ"
  | "ν"
  | "◇"
  | "□";

/**
 * Token classes. `ident` includes keywords (the parser decides where a keyword is allowed);
 * `hexword` is a word that starts with a digit and is not all digits (only a commit hash may
 * look like that); `dollar` is `$NAME`; `invalid` is text no token starts with.
 */
export type TokenKind = "ident" | "number" | "hexword" | "string" | "path" | "dollar" | "invalid" | "eof" | Punct;

export interface Token {
  kind: TokenKind;
  /** The source text of the token (with quotes for a string; "" at end of input). */
  text: string;
  /** The decoded value of a string; the text for every other token. */
  value: string;
  offset: number;
  line: number;
  column: number;
}

/** Words that cannot be state, part, model, rule, formula or variable names (docs/language.md). */
export const KEYWORDS: ReadonlySet<string> = new Set([
  "model",
  "part",
  "initial",
  "export",
  "default",
  "rule",
  "formula",
  "starting_at",
  "true",
  "false",
  "not",
  "and",
  "or",
  "implies",
  "until",
  "always",
  "eventually",
  "next",
  "lfp",
  "gfp",
]);
