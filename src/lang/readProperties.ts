import type { Property } from "./ast.js";
import { PREDICATE_ALIASES, PREDICATES_REQUIRING_ARGS } from "./properties.js";
import type { TokenCursor } from "./TokenCursor.js";

function startsProperty(c: TokenCursor): boolean {
  return c.tok.kind === "+" || c.tok.kind === "-";
}

function readArgument(c: TokenCursor): string {
  switch (c.tok.kind) {
    case "string":
    case "path":
    case "ident":
    case "number":
      return c.next().value;
    default:
      return c.fail(["argument"]);
  }
}

function readProperty(c: TokenCursor): Property {
  if (!startsProperty(c)) c.fail(["property"]);
  const sign = c.next().kind === "+" ? "+" : "-";
  // Keywords are allowed here: a property name never stands where a state name could.
  if (c.tok.kind !== "ident") c.fail(["property name"], `after "${sign}"`);
  const name = c.next().text;
  if (!c.is("(")) {
    if (PREDICATES_REQUIRING_ARGS.has(name)) c.fail(["("], `after ${name}, which requires arguments`);
    return { sign, name, args: null };
  }
  c.next();
  const args: string[] = [];
  if (c.is(")")) {
    if (PREDICATES_REQUIRING_ARGS.has(name)) c.fail(["argument"], `to ${name}`);
  } else {
    args.push(readArgument(c));
    while (c.is(",")) {
      c.next();
      args.push(readArgument(c));
    }
    if (!c.is(")")) c.fail([",", ")"], "in argument list");
  }
  c.next();
  // Own keys only: a property may be called `toString` or `__proto__`.
  return { sign, name: Object.hasOwn(PREDICATE_ALIASES, name) ? PREDICATE_ALIASES[name]! : name, args };
}

/**
 * Reads `prop ( ","? prop )*` (docs/language.md); with `required` false an empty list is fine.
 * Stops at the first token that cannot continue the list; the caller checks the closer.
 */
export function readProperties(c: TokenCursor, required: boolean): Property[] {
  const props: Property[] = [];
  if (!startsProperty(c)) {
    if (required) c.fail(["property"]);
    return props;
  }
  props.push(readProperty(c));
  for (;;) {
    if (c.is(",")) {
      c.next();
      props.push(readProperty(c));
    } else if (startsProperty(c)) {
      props.push(readProperty(c));
    } else {
      return props;
    }
  }
}
