import type { ErrorCode } from "./errorCodes.js";

/**
 * The engine's one error type. `code` is from the closed list of errorCodes.ts (its HTTP
 * status and JSON-RPC number are the adapters' business: src/http/errorTable.ts);
 * `details.reason` (when present) is a stable identifier tests and clients can match,
 * since messages are for people and may be reworded.
 */
export class ContractError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, options?: ErrorOptions) {
    super(message, options);
    this.name = "ContractError";
    this.code = code;
    if (details !== undefined) this.details = details;
  }
}

/** True when `err` is a ContractError, optionally with the given code. */
export function isContractError(err: unknown, code?: ErrorCode): err is ContractError {
  return err instanceof ContractError && (code === undefined || err.code === code);
}
