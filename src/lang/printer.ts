/**
 * Canonical text for any syntax tree: parsing the output gives back the same tree (ignoring
 * `pos`). Parentheses are written only where docs/language.md's precedence needs them.
 */
import type { Formula, FormulaDecl, ModelDecl, Property, RuleDecl, SourceFile, Transition } from "./ast.js";

const PATH_ARG = /^\/[A-Za-z0-9_.\-/]+$/;
const NUMBER_ARG = /^[0-9]+$/;

/** Precedence levels, loosest first; an operand printed below its slot's level gets parentheses. */
const OR = 1;
const IMPLIES = 2;
const AND = 3;
const UNTIL = 4;
const ATOM = 5;

function printArg(arg: string): string {
  // `//` and `/*` would start a comment, so such paths stay quoted.
  if (PATH_ARG.test(arg) && arg[1] !== "/") return arg;
  if (NUMBER_ARG.test(arg)) return arg;
  return JSON.stringify(arg);
}

/** `+NAME` or `-NAME(arg, …)`, with path and number arguments unquoted and others as JSON strings. */
export function printProperty(p: Property): string {
  return p.args === null ? `${p.sign}${p.name}` : `${p.sign}${p.name}(${p.args.map(printArg).join(", ")})`;
}

function printLabel(label: readonly Property[]): string {
  return label.map(printProperty).join(" ");
}

function level(f: Formula): number {
  switch (f.kind) {
    case "or":
      return OR;
    case "implies":
      return IMPLIES;
    case "and":
      return AND;
    case "until":
      return f.form === "infix" ? UNTIL : ATOM;
    default:
      return ATOM;
  }
}

function operand(f: Formula, min: number): string {
  const text = formulaText(f);
  return level(f) < min ? `(${text})` : text;
}

function formulaText(f: Formula): string {
  switch (f.kind) {
    case "true":
    case "false":
      return f.kind;
    case "ident":
      return f.name;
    case "not":
      return `!${operand(f.arg, ATOM)}`;
    case "or":
      return `${operand(f.left, OR)} | ${operand(f.right, IMPLIES)}`;
    case "implies":
      return `${operand(f.left, AND)} -> ${operand(f.right, IMPLIES)}`;
    case "and":
      return `${operand(f.left, AND)} & ${operand(f.right, UNTIL)}`;
    case "until":
      return f.form === "infix"
        ? `${operand(f.left, ATOM)} until ${operand(f.right, UNTIL)}`
        : `until(${formulaText(f.left)}, ${formulaText(f.right)})`;
    case "diamond":
      return `<${printLabel(f.label)}> ${operand(f.arg, ATOM)}`;
    case "box":
      return `[${printLabel(f.label)}] ${operand(f.arg, ATOM)}`;
    case "diamondbox":
      return `[<${printLabel(f.label)}>] ${operand(f.arg, ATOM)}`;
    case "lfp":
    case "gfp":
      return `${f.kind}(${f.variable}, ${formulaText(f.body)})`;
    case "always":
    case "eventually":
    case "next":
      return `${f.kind}(${formulaText(f.arg)})`;
  }
}

/** A formula on one line, with the minimum of parentheses. */
export function printFormula(f: Formula): string {
  return formulaText(f);
}

function printTransition(t: Transition): string {
  if (t.label.length === 0) return `${t.from} ${t.arrow} ${t.to}`;
  const label = printLabel(t.label);
  return t.arrow === "->" ? `${t.from} -> ${t.to} [${label}]` : `${t.from} --> ${t.to}: ${label}`;
}

/** A model, one item per line: `initial`, then the direct transitions, then the parts. */
export function printModel(m: ModelDecl): string {
  const header = m.form === "named" ? `model ${m.name} {` : "export default model {";
  const lines: string[] = [];
  if (m.initial !== null) lines.push(`  initial ${m.initial}`);
  for (const t of m.transitions) lines.push(`  ${printTransition(t)}`);
  for (const p of m.parts) {
    if (p.transitions.length === 0) {
      lines.push(`  part ${p.name} {}`);
      continue;
    }
    lines.push(`  part ${p.name} {`);
    for (const t of p.transitions) lines.push(`    ${printTransition(t)}`);
    lines.push("  }");
  }
  return lines.length === 0 ? `${header}}` : `${header}\n${lines.join("\n")}\n}`;
}

/** A rule in its envelope; a bare rule prints as its formula. */
export function printRule(r: RuleDecl): string {
  const formula = printFormula(r.formula);
  if (r.envelope === "bare") return formula;
  const header = r.envelope === "named" ? `rule ${r.name ?? ""} {` : "export default rule {";
  const lines = [header];
  if (r.startingAt !== null) lines.push(`  starting_at ${r.startingAt}`);
  lines.push(r.formulaName === null ? "  formula {" : `  formula ${r.formulaName} {`, `    ${formula}`, "  }", "}");
  return lines.join("\n");
}

function printFormulaDecl(d: FormulaDecl): string {
  return `formula ${d.name} { ${printFormula(d.formula)} }`;
}

/** All items of a source text, separated by blank lines. */
export function printSource(s: SourceFile): string {
  const out: string[] = [];
  let previousBare = false;
  for (const item of s.items) {
    if (item.kind === "model") out.push(printModel(item));
    else if (item.kind === "formula") out.push(printFormulaDecl(item));
    else {
      let text = printRule(item);
      // After a bare formula, a leading `until(` would read as the infix `until` continuing it.
      if (item.envelope === "bare" && previousBare && text.startsWith("until")) text = `(${text})`;
      out.push(text);
    }
    previousBare = item.kind === "rule" && item.envelope === "bare";
  }
  return out.length === 0 ? "" : `${out.join("\n\n")}\n`;
}
