import type { ModelDecl, Part, Pos, Transition } from "./ast.js";
import { readProperties } from "./readProperties.js";
import { STEP_SIZE, type Steps } from "./Steps.js";
import type { TokenCursor } from "./TokenCursor.js";

function readTransition(c: TokenCursor): Transition {
  const pos = c.pos();
  const from = c.name("state name");
  if (!c.is("->") && !c.is("-->")) c.fail(["->", "-->"], "after state name");
  const arrow = c.next().kind === "->" ? "->" : "-->";
  const to = c.name("state name", `after "${arrow}"`);
  let label: Transition["label"] = [];
  if (arrow === "->" && c.is("[")) {
    c.next();
    label = readProperties(c, false);
    if (!c.is("]")) c.fail(label.length === 0 ? ["property", "]"] : ["property", ",", "]"]);
    c.next();
  } else if (arrow === "-->" && c.is(":")) {
    c.next();
    label = readProperties(c, true);
  }
  return { from, to, label, arrow, pos };
}

function* readPart(c: TokenCursor): Steps<Part> {
  const pos = c.pos();
  c.next();
  const name = c.name("part name", 'after "part"');
  c.expect("{", "after part name");
  const transitions: Transition[] = [];
  while (!c.is("}")) {
    if (!c.isName()) c.fail(["state name", "}"], "in part");
    transitions.push(readTransition(c));
    if (transitions.length % STEP_SIZE === 0) yield;
  }
  c.next();
  return { name, transitions, pos };
}

/**
 * Reads a model body from its `{` on; the header (`model NAME` or `export default model`) is
 * read by the caller. Pauses every STEP_SIZE transitions (see Steps.ts).
 */
export function* readModel(c: TokenCursor, pos: Pos, name: string, form: ModelDecl["form"]): Steps<ModelDecl> {
  c.expect("{", form === "named" ? "after model name" : 'after "model"');
  let initial: string | null = null;
  const transitions: Transition[] = [];
  const parts: Part[] = [];
  while (!c.is("}")) {
    if (c.isWord("initial")) {
      c.next();
      initial = c.name("state name", 'after "initial"');
    } else if (c.isWord("part")) {
      parts.push(yield* readPart(c));
    } else if (c.isName()) {
      transitions.push(readTransition(c));
      if (transitions.length % STEP_SIZE === 0) yield;
    } else {
      c.fail(["initial", "part", "state name", "}"], "in model");
    }
  }
  c.next();
  return { kind: "model", name, form, initial, transitions, parts, pos };
}
