import { readFile } from "node:fs/promises";
import type { ModelDecl, SourceFile } from "../lang/ast.js";
import { ParseError, parseSource } from "../lang/parser.js";
import { printSource } from "../lang/printer.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type Io } from "./Io.js";
import { reportModelFailure } from "./modelFailure.js";

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function modelSummary(m: ModelDecl): string {
  // States are identified by (part, name); direct transitions form the part "default".
  const groups = [m.transitions, ...m.parts.map((p) => p.transitions)];
  let states = 0;
  let transitions = 0;
  for (const ts of groups) {
    states += new Set(ts.flatMap((t) => [t.from, t.to])).size;
    transitions += ts.length;
  }
  const parts = m.parts.length + (m.transitions.length > 0 || m.parts.length === 0 ? 1 : 0);
  return `// model ${m.name}: ${plural(parts, "part")}, ${plural(states, "state")}, ${plural(transitions, "transition")}`;
}

function summary(s: SourceFile): string {
  const count = (kind: string) => s.items.filter((i) => i.kind === kind).length;
  const lines = [
    `// ${plural(count("model"), "model")}, ${plural(count("formula"), "formula")}, ${plural(count("rule"), "rule")}`,
  ];
  for (const item of s.items) if (item.kind === "model") lines.push(modelSummary(item));
  return lines.join("\n");
}

/**
 * `contract-hub model parse <file> [--json]`: parses models, formulas and rules; prints the tree as
 * JSON, or the canonical text followed by a summary in `//` comments (so the output parses too).
 */
export async function modelParseCommand(file: string, opts: { json?: boolean }, io: Io): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const details = { reason: "unreadable_file", file };
    // A file the user named that cannot be read is a usage error (exit 2), as in every command.
    reportModelFailure(io, opts.json, `model parse: cannot read ${file}: ${why}`, details, "USAGE");
    return EXIT_USAGE;
  }
  let source: SourceFile;
  try {
    source = parseSource(text);
  } catch (error) {
    if (!(error instanceof ParseError)) throw error;
    const details = { reason: "parse_error", file, line: error.line, column: error.column };
    reportModelFailure(io, opts.json, `${file}:${error.message}`, details);
    return EXIT_FAILED;
  }
  if (opts.json) {
    io.out(`${JSON.stringify(source, null, 2)}\n`);
  } else {
    const printed = printSource(source);
    io.out(`${printed}${printed === "" ? "" : "\n"}${summary(source)}\n`);
  }
  return EXIT_OK;
}
