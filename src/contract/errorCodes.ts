/**
 * The closed list of error codes every refusal carries. The engine and the core know codes
 * only; how each travels (HTTP status, JSON-RPC number) is the adapters' table in
 * src/http/errorTable.ts, which must name every code here.
 */
export const ERROR_CODES = [
  "INVALID_REQUEST",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "NOT_FOUND",
  "CONFLICT",
  "PAYLOAD_TOO_LARGE",
  "VALIDATION_FAILED",
  "RATE_LIMITED",
  "UPSTREAM_ERROR",
  "UNAVAILABLE",
  "CORRUPTED",
  "INTERNAL",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** True when `value` is one of the codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (ERROR_CODES as readonly string[]).includes(value);
}

/**
 * Refusals that speak of the hub or the caller (credentials, its budget, the store, a missing
 * configuration), never of a commit: the hub names no commit in them (docs/api.md), and a
 * client does not take one for a refusal of the commit it sent.
 */
export const NOT_ABOUT_A_COMMIT: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "UNAUTHORIZED",
  "RATE_LIMITED",
  "UPSTREAM_ERROR",
  "UNAVAILABLE",
  "CORRUPTED",
  "INTERNAL",
]);
