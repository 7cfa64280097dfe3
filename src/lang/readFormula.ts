import type { Formula, Property } from "./ast.js";
import { readProperties } from "./readProperties.js";
import type { Token } from "./Token.js";
import type { TokenCursor } from "./TokenCursor.js";

/** Deepest formula tree (and deepest nesting of atoms) the parser accepts. */
export const MAX_FORMULA_DEPTH = 256;

const DEPTH_LIMIT = `at most ${MAX_FORMULA_DEPTH} nested formula levels`;

function checkDepth(c: TokenCursor, depth: number, at: Token): number {
  if (depth > MAX_FORMULA_DEPTH) c.failAt(at, [DEPTH_LIMIT]);
  return depth;
}

/** Reads `expr` (docs/language.md) and leaves its tree depth in `c.lastDepth`. */
export function readFormula(c: TokenCursor): Formula {
  let left = readImplies(c);
  let depth = c.lastDepth;
  while (c.is("|") || c.isWord("or")) {
    const op = c.next();
    const right = readImplies(c);
    depth = checkDepth(c, Math.max(depth, c.lastDepth) + 1, op);
    left = { kind: "or", left, right };
  }
  c.lastDepth = depth;
  return left;
}

function readImplies(c: TokenCursor): Formula {
  const first = readAnd(c);
  if (!(c.is("->") || c.isWord("implies"))) return first;
  // Right-associative chains are folded in a loop so their length cannot grow the stack.
  const operands = [first];
  const depths = [c.lastDepth];
  const ops: Token[] = [];
  while (c.is("->") || c.isWord("implies")) {
    ops.push(c.next());
    operands.push(readAnd(c));
    depths.push(c.lastDepth);
  }
  return foldRight(c, operands, depths, ops, (left, right) => ({ kind: "implies", left, right }));
}

function foldRight(
  c: TokenCursor,
  operands: Formula[],
  depths: number[],
  ops: Token[],
  make: (left: Formula, right: Formula) => Formula,
): Formula {
  let n = operands.length - 1;
  let result = operands[n]!;
  let depth = depths[n]!;
  while (n > 0) {
    n--;
    depth = checkDepth(c, Math.max(depths[n]!, depth) + 1, ops[n]!);
    result = make(operands[n]!, result);
  }
  c.lastDepth = depth;
  return result;
}

function readAnd(c: TokenCursor): Formula {
  let left = readUntil(c);
  let depth = c.lastDepth;
  while (c.is("&") || c.isWord("and")) {
    const op = c.next();
    const right = readUntil(c);
    depth = checkDepth(c, Math.max(depth, c.lastDepth) + 1, op);
    left = { kind: "and", left, right };
  }
  c.lastDepth = depth;
  return left;
}

function readUntil(c: TokenCursor): Formula {
  const first = readAtom(c);
  if (!c.isWord("until")) return first;
  const operands = [first];
  const depths = [c.lastDepth];
  const ops: Token[] = [];
  while (c.isWord("until")) {
    ops.push(c.next());
    operands.push(readAtom(c));
    depths.push(c.lastDepth);
  }
  return foldRight(c, operands, depths, ops, (left, right) => ({ kind: "until", left, right, form: "infix" }));
}

/** `( expr )` after a function-like keyword. */
function readCallArgument(c: TokenCursor, fn: string): Formula {
  c.expect("(", `after "${fn}"`);
  const f = readFormula(c);
  c.expect(")", `to close "${fn}("`);
  return f;
}

function readLabel(c: TokenCursor, closer: ">" | "]"): Property[] {
  const label = readProperties(c, false);
  if (!c.is(closer)) c.fail(label.length === 0 ? ["property", closer] : ["property", ",", closer]);
  c.next();
  return label;
}

/** The atom readers recurse through here, so this is where nesting is bounded. */
function readAtom(c: TokenCursor): Formula {
  const start = c.tok;
  if (++c.nesting > MAX_FORMULA_DEPTH) c.fail([DEPTH_LIMIT]);
  const f = readAtomInner(c);
  c.nesting--;
  // A wrapper node adds one level to its operand; leaves and parentheses set their own depth.
  if (f.kind !== "true" && f.kind !== "false" && f.kind !== "ident" && start.kind !== "(") {
    c.lastDepth = checkDepth(c, c.lastDepth + 1, start);
  }
  return f;
}

function readAtomInner(c: TokenCursor): Formula {
  const t = c.tok;
  switch (t.kind) {
    case "ident":
      return readWordAtom(c, t.text);
    case "!":
      c.next();
      return { kind: "not", arg: readAtom(c) };
    case "(": {
      c.next();
      const f = readFormula(c);
      c.expect(")", "to close the parenthesis");
      return f;
    }
    case "<": {
      c.next();
      const label = readLabel(c, ">");
      return { kind: "diamond", label, arg: readAtom(c) };
    }
    case "[": {
      c.next();
      if (c.is("<")) {
        c.next();
        const label = readLabel(c, ">");
        c.expect("]", 'to close "[<"');
        return { kind: "diamondbox", label, arg: readAtom(c) };
      }
      const label = readLabel(c, "]");
      return { kind: "box", label, arg: readAtom(c) };
    }
    case "μ":
    case "ν": {
      c.next();
      const variable = c.name("variable name", `after "${t.kind}"`);
      c.expect(".", "after the variable name");
      return { kind: t.kind === "μ" ? "lfp" : "gfp", variable, body: readAtom(c) };
    }
    case "◇":
      c.next();
      return { kind: "eventually", arg: readCallArgument(c, t.kind) };
    case "□":
      c.next();
      return { kind: "always", arg: readCallArgument(c, t.kind) };
    default:
      return c.fail(["formula expression"]);
  }
}

function readWordAtom(c: TokenCursor, word: string): Formula {
  switch (word) {
    case "true":
    case "false":
      c.next();
      c.lastDepth = 1;
      return { kind: word };
    case "not":
      c.next();
      return { kind: "not", arg: readAtom(c) };
    case "lfp":
    case "gfp": {
      c.next();
      c.expect("(", `after "${word}"`);
      const variable = c.name("variable name", `after "${word}("`);
      c.expect(",", "after the variable name");
      const body = readFormula(c);
      c.expect(")", `to close "${word}("`);
      return { kind: word, variable, body };
    }
    case "always":
    case "eventually":
    case "next":
      c.next();
      return { kind: word, arg: readCallArgument(c, word) };
    case "until": {
      c.next();
      c.expect("(", 'after "until" at the start of a formula');
      const left = readFormula(c);
      const leftDepth = c.lastDepth;
      c.expect(",", 'between the operands of "until("');
      const right = readFormula(c);
      c.lastDepth = Math.max(leftDepth, c.lastDepth);
      c.expect(")", 'to close "until("');
      return { kind: "until", left, right, form: "call" };
    }
    default:
      if (!c.isName()) c.fail(["formula expression"]);
      c.next();
      c.lastDepth = 1;
      return { kind: "ident", name: word };
  }
}
