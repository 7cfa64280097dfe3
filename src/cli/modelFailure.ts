import type { ErrorCode } from "../contract/errorCodes.js";
import type { Io } from "./Io.js";

/**
 * A model command's failure: the message for people on stderr, and with --json also the error
 * document every command prints on stdout (`{error, code, details}`, docs/cli.md), so a script
 * that asked for JSON can tell a syntax error from a formula that does not hold.
 */
export function reportModelFailure(
  io: Io,
  json: boolean | undefined,
  message: string,
  details: Record<string, unknown>,
  code: ErrorCode | "USAGE" = "VALIDATION_FAILED",
): void {
  io.err(message);
  if (json) io.out(JSON.stringify({ error: message, code, details }, null, 2));
}
