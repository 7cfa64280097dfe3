import { braceMatches } from "./braceMatches.js";

/**
 * Index of the `}` closing the `{` at `open`, or -1. Skips double-quoted strings (with
 * backslash escapes) and `//` and `/* *\/` comments, so braces inside them do not count.
 * Serves both the contract language and JSON found in a model's answer.
 */
export function matchingBrace(text: string, open: number): number {
  return braceMatches(text, open).get(open) ?? -1;
}
