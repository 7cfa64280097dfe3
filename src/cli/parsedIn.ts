import { ContractError } from "../contract/ContractError.js";
import { ParseError } from "../lang/parser.js";

/** Runs a parse of `file`'s text; a syntax error is refused as `file:line:col: message`. */
export function parsedIn(file: string, parse: () => unknown): void {
  try {
    parse();
  } catch (err) {
    if (!(err instanceof ParseError)) throw err;
    throw new ContractError("VALIDATION_FAILED", `${file}:${err.message}`, {
      reason: "parse_error",
      file,
      line: err.line,
      column: err.column,
    });
  }
}
