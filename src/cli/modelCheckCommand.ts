import { readFile } from "node:fs/promises";
import type { Formula } from "../lang/ast.js";
import { checkAtInitial } from "../lang/check.js";
import { BudgetExceededError, FormulaError, ModelError } from "../lang/checkErrors.js";
import type { Counterexample } from "../lang/counterexample.js";
import { stateSetToList } from "../lang/evaluate.js";
import { labelText } from "../lang/graph.js";
import { compileModel, type Lts } from "../lang/Lts.js";
import { ParseError, parseFormula, parseModel } from "../lang/parser.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type Io } from "./Io.js";
import { reportModelFailure } from "./modelFailure.js";

/**
 * Reads, parses and compiles a model file; reports errors as `file:line:col: message` and
 * returns the exit code: 2 for a file that cannot be read (a usage error, as for every command
 * that reads a file the user names, docs/cli.md), 1 for a model that is rejected.
 */
export async function loadModelFile(file: string, io: Io, command: string, json?: boolean): Promise<Lts | number> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    reportModelFailure(
      io,
      json,
      `${command}: cannot read ${file}: ${why}`,
      { reason: "unreadable_file", file },
      "USAGE",
    );
    return EXIT_USAGE;
  }
  try {
    return compileModel(parseModel(text));
  } catch (error) {
    // ParseError and positioned ModelErrors already start with "line:col: ".
    if (error instanceof ParseError) {
      const details = { reason: "parse_error", file, line: error.line, column: error.column };
      reportModelFailure(io, json, `${file}:${error.message}`, details);
      return EXIT_FAILED;
    }
    if (error instanceof ModelError) {
      const at = error.line === undefined ? {} : { line: error.line, column: error.column };
      const text = error.line === undefined ? `${file}: ${error.message}` : `${file}:${error.message}`;
      reportModelFailure(io, json, text, { reason: "model_error", file, ...at });
      return EXIT_FAILED;
    }
    throw error;
  }
}

/** Model warnings, one line each on stderr. */
export function printWarnings(lts: Lts, io: Io): void {
  for (const w of lts.warnings) io.err(`warning: ${w.message}`);
}

/** A counterexample with state names (`part:name` when `qualified`) and label texts. */
export function counterexampleJson(lts: Lts, cx: Counterexample, qualified = true) {
  const name = (s: number) => (qualified ? lts.qualifiedNames[s]! : lts.displayNames[s]!);
  return {
    kind: cx.kind,
    state: name(cx.state),
    path: cx.path.map(name),
    labels: cx.transitions.map((e) => labelText(lts.transitions[e]!.label)),
    ...(cx.reachable ? { reachable: cx.reachable.map(name) } : {}),
  };
}

/**
 * `contract-hub model check <model-file> <formula> [--json]`: exit 0 when the formula holds at
 * every part's initial state, 1 when it does not or when the model or formula is rejected, 2
 * when the file cannot be read.
 */
export async function modelCheckCommand(
  file: string,
  formulaText: string,
  opts: { json?: boolean },
  io: Io,
): Promise<number> {
  const lts = await loadModelFile(file, io, "model check", opts.json);
  if (typeof lts === "number") return lts;
  let formula: Formula;
  try {
    formula = parseFormula(formulaText);
  } catch (error) {
    if (error instanceof ParseError) {
      const details = { reason: "parse_error", file: "<formula>", line: error.line, column: error.column };
      reportModelFailure(io, opts.json, `<formula>:${error.message}`, details);
      return EXIT_FAILED;
    }
    throw error;
  }
  let result: ReturnType<typeof checkAtInitial>;
  try {
    result = checkAtInitial(lts, formula);
  } catch (error) {
    if (error instanceof FormulaError) {
      const details = { reason: "formula_error", kind: error.code };
      reportModelFailure(io, opts.json, `<formula>: ${error.message}`, details);
      return EXIT_FAILED;
    }
    if (error instanceof BudgetExceededError) {
      const details = { reason: "budget_exceeded", budget: error.budget };
      reportModelFailure(io, opts.json, `<formula>: ${error.message}`, details);
      return EXIT_FAILED;
    }
    throw error;
  }
  const cx = result.failing?.counterexample;
  if (opts.json) {
    const states = stateSetToList(result.satisfying)
      .map((s) => lts.qualifiedNames[s]!)
      .sort();
    io.out(
      JSON.stringify({
        states,
        holds_at_initial: result.holds,
        ...(cx ? { counterexample: counterexampleJson(lts, cx) } : {}),
      }),
    );
  } else {
    printWarnings(lts, io);
    io.out(summary(lts, result.holds, stateSetToList(result.satisfying), cx));
  }
  return result.holds ? EXIT_OK : EXIT_FAILED;
}

function summary(lts: Lts, holds: boolean, satisfying: number[], cx: Counterexample | undefined): string {
  const name = (s: number) => lts.displayNames[s]!;
  const initial = lts.initialStates.map(name).join(", ") || "(none)";
  const lines = [
    `model ${lts.name}: ${lts.stateCount} states, ${lts.transitionCount} transitions, ${lts.parts.length} part(s)`,
    `holds at ${satisfying.length} of ${lts.stateCount} states${satisfying.length ? `: ${satisfying.map(name).join(", ")}` : ""}`,
    `at the initial state (${initial}): ${holds ? "holds" : "does not hold"}`,
  ];
  if (cx) {
    lines.push(`fails at ${name(cx.state)}`);
    if (cx.transitions.length > 0) {
      const steps = cx.transitions.map(
        (e, i) => ` --[${labelText(lts.transitions[e]!.label)}]--> ${name(cx.path[i + 1]!)}`,
      );
      lines.push(`  path: ${name(cx.path[0]!)}${steps.join("")}`);
    }
    if (cx.reachable) lines.push(`  target unreachable; reachable: ${cx.reachable.map(name).join(", ")}`);
  }
  return lines.join("\n");
}
