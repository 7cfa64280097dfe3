import type { Property } from "./ast.js";

/** Action labels a commit may carry (docs/protocol.md); method names are excluded separately. */
export const ACTION_LABEL_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/;

/** Commit methods usable as static labels (`+POST`, `+SEND`, …); docs/language.md. */
export const METHOD_LABELS = ["POST", "RULE", "MODEL", "REPOST", "ACTION", "CREATE", "SEND", "RECV"] as const;

/** Predicates that must be written with arguments (docs/language.md): a parse error otherwise. */
export const PREDICATES_REQUIRING_ARGS = new Set([
  "signed_by",
  "threshold",
  "any_signed",
  "all_signed",
  "oracle_attests",
  "before",
  "after",
  "hash_matches",
  "modifies",
  "post_to",
  "sets",
  "posts_to",
]);

/** Built-in predicates; any other name with parentheses is a custom WASM predicate. */
export const BUILTIN_PREDICATES = new Set([...PREDICATES_REQUIRING_ARGS, "adds_rule"]);

/** `sets` and `posts_to` are spellings of `post_to`; the parser stores the canonical name. */
export const PREDICATE_ALIASES: Readonly<Record<string, string>> = { sets: "post_to", posts_to: "post_to" };

/**
 * The meaning of a property, as used for label matching and evaluation: aliases resolved and
 * the `signed_by("buyer")` party shorthand expanded to `signed_by(/users/buyer.id)`.
 * `adds_rule` means the same with or without empty parentheses.
 */
export function canonicalProperty(p: Property): Property {
  // Own keys only: a property may be called `constructor` or `toString`.
  const name = Object.hasOwn(PREDICATE_ALIASES, p.name) ? PREDICATE_ALIASES[p.name]! : p.name;
  let args = p.args;
  if (name === "adds_rule" && args !== null && args.length === 0) args = null;
  if (name === "signed_by" && args !== null && args.length === 1 && !args[0]!.startsWith("/")) {
    args = [`/users/${args[0]}.id`];
  }
  return name === p.name && args === p.args ? p : { sign: p.sign, name, args };
}

/**
 * Identity of a property for label matching, without its sign: a static label is mentioned by
 * any property of the same name; a predicate only by one with the same name and arguments.
 * Call on canonical properties.
 */
export function propertyKey(p: Property): string {
  return p.args === null ? p.name : `${p.name}(${JSON.stringify(p.args)})`;
}

/** True for a property written with parentheses (a predicate), false for a static label. */
export function isPredicate(p: Property): boolean {
  return p.args !== null || p.name === "adds_rule";
}
