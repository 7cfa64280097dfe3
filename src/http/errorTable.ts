/**
 * How each error code travels: its HTTP status and JSON-RPC number (the one table; the engine
 * knows the codes only). `satisfies` makes a code added to the engine's list a compile error
 * here until it has both.
 */
import type { ContractError } from "../contract/ContractError.js";
import type { ErrorCode } from "../contract/errorCodes.js";

export const ERROR_TABLE = {
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
} as const satisfies Record<ErrorCode, { http: number; rpc: number }>;

/** The HTTP status of an error's code. */
export function httpStatusOf(err: ContractError): number {
  return ERROR_TABLE[err.code].http;
}

/**
 * The JSON-RPC number for an error: a VALIDATION_FAILED that carries a more specific
 * `details.rpc_code` (the asset refusals, REPOST sources, a malformed CREATE) uses it; every
 * other error uses the table.
 */
export function rpcCodeOf(code: ErrorCode, details?: Record<string, unknown>): number {
  const specific = details?.rpc_code;
  if (code === "VALIDATION_FAILED" && typeof specific === "number" && Number.isInteger(specific)) return specific;
  return ERROR_TABLE[code].rpc;
}

/** The error body `{error, code, details?}` (REST responses, the CLI's `--json`). */
export function errorBody(err: ContractError): { error: string; code: ErrorCode; details?: Record<string, unknown> } {
  return err.details === undefined
    ? { error: err.message, code: err.code }
    : { error: err.message, code: err.code, details: err.details };
}
