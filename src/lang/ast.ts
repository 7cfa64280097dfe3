/**
 * The contract language's syntax tree (docs/language.md).
 *
 * The tree keeps what the text said (arrow form, argument spelling normalised only as far as
 * quoting goes) so the printer can reproduce it; meaning-level normalisation (aliases such as
 * `sets` → `post_to`, the `signed_by("buyer")` party shorthand) happens once, in
 * `properties.ts`, when a model or a label is compiled for checking.
 */

/** 1-based source position. */
export interface Pos {
  line: number;
  column: number;
}

/**
 * A signed property in a transition label or a modal operator: `+NAME`, `-NAME(args)`.
 * `args === null` means no parentheses (a static label, or the zero-argument `adds_rule`
 * written without them); `[]` means empty parentheses.
 * Arguments are plain text: `"buyer"`, `buyer` and `/users/x.id` are stored without quotes,
 * and the number `2` as `"2"` (docs/language.md: a quoted argument and the same text unquoted
 * are the same argument).
 */
export interface Property {
  sign: "+" | "-";
  name: string;
  args: string[] | null;
}

export interface Transition {
  from: string;
  to: string;
  /** Empty for `[]` and for a transition written without a label list. */
  label: Property[];
  /** `->` (with an optional `[...]` label list) or `-->` (with an optional `: ...` list). */
  arrow: "->" | "-->";
  pos: Pos;
}

export interface Part {
  name: string;
  transitions: Transition[];
  pos: Pos;
}

export interface ModelDecl {
  kind: "model";
  /** `"default"` for the `export default model { ... }` form. */
  name: string;
  form: "named" | "export-default";
  /** The last `initial` declaration, or null. */
  initial: string | null;
  /** Transitions written directly in the model body: they form the part named `default`. */
  transitions: Transition[];
  parts: Part[];
  pos: Pos;
}

export type Formula =
  | { kind: "true" }
  | { kind: "false" }
  /** A state name, or a variable bound by an enclosing `lfp`/`gfp`. */
  | { kind: "ident"; name: string }
  | { kind: "not"; arg: Formula }
  | { kind: "and" | "or" | "implies"; left: Formula; right: Formula }
  /** `p until q` and `until(p, q)`; `form` remembers which one was written. */
  | { kind: "until"; left: Formula; right: Formula; form: "infix" | "call" }
  /** `<L> f`, `[L] f`, `[<L>] f`; `<> f` and `[] f` have an empty label. */
  | { kind: "diamond" | "box" | "diamondbox"; label: Property[]; arg: Formula }
  | { kind: "lfp" | "gfp"; variable: string; body: Formula }
  | { kind: "always" | "eventually" | "next"; arg: Formula };

/** `formula NAME { expr }` at top level. */
export interface FormulaDecl {
  kind: "formula";
  name: string;
  formula: Formula;
  pos: Pos;
}

/**
 * `export default rule { [starting_at A] formula [NAME] { expr } }`,
 * `rule NAME { ... }`, or a bare formula (envelope "bare", anchored at `$PARENT`).
 */
export interface RuleDecl {
  kind: "rule";
  envelope: "export-default" | "named" | "bare";
  /** Rule name for the named envelope, else null. */
  name: string | null;
  /** `$PARENT` or a 64-hex commit hash; null when `starting_at` was not written. */
  startingAt: string | null;
  /** Name after `formula`, if one was written. */
  formulaName: string | null;
  formula: Formula;
  pos: Pos;
}

/** A whole source text: any number of models, formula declarations and rules, in order. */
export interface SourceFile {
  items: Array<ModelDecl | FormulaDecl | RuleDecl>;
}
