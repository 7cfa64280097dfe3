/**
 * The closed table of error codes (PROTOCOL.md §4): each code's HTTP status and JSON-RPC
 * number. The hub maps a ContractError through this table once, so routes never pick
 * statuses themselves.
 */
export const ERROR_CODES = {
  INVALID_REQUEST: { http: 400, rpc: -32602 },
  UNAUTHORIZED: { http: 401, rpc: -32001 },
  FORBIDDEN: { http: 403, rpc: -32003 },
  NOT_FOUND: { http: 404, rpc: -32004 },
  CONFLICT: { http: 409, rpc: -32009 },
  PAYLOAD_TOO_LARGE: { http: 413, rpc: -32013 },
  VALIDATION_FAILED: { http: 422, rpc: -32005 },
  RATE_LIMITED: { http: 429, rpc: -32029 },
  UPSTREAM_ERROR: { http: 502, rpc: -32052 },
  UNAVAILABLE: { http: 503, rpc: -32053 },
  CORRUPTED: { http: 500, rpc: -32099 },
  INTERNAL: { http: 500, rpc: -32603 },
} as const satisfies Record<string, { http: number; rpc: number }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** True when `value` is one of the table's codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_CODES, value);
}

/**
 * The JSON-RPC number for an error: a VALIDATION_FAILED that carries a more specific
 * `details.rpc_code` (asset codes of spec 7.2, REPOST -32010..-32012, malformed CREATE
 * -32602) uses it; every other error uses the table.
 */
export function rpcCodeOf(code: ErrorCode, details?: Record<string, unknown>): number {
  const specific = details?.rpc_code;
  if (code === "VALIDATION_FAILED" && typeof specific === "number" && Number.isInteger(specific)) return specific;
  return ERROR_CODES[code].rpc;
}
