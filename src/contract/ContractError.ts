import { ERROR_CODES, type ErrorCode, rpcCodeOf } from "./errorCodes.js";

/**
 * The engine's one error type. `code` is from the closed table of PROTOCOL.md §4;
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

  /** The HTTP status of this error's code. */
  get httpStatus(): number {
    return ERROR_CODES[this.code].http;
  }

  /** The JSON-RPC error number (a specific `details.rpc_code` wins for VALIDATION_FAILED). */
  get rpcCode(): number {
    return rpcCodeOf(this.code, this.details);
  }

  /** The REST error body `{error, code, details?}`. */
  toBody(): { error: string; code: ErrorCode; details?: Record<string, unknown> } {
    return this.details === undefined
      ? { error: this.message, code: this.code }
      : { error: this.message, code: this.code, details: this.details };
  }
}

/** True when `err` is a ContractError, optionally with the given code. */
export function isContractError(err: unknown, code?: ErrorCode): err is ContractError {
  return err instanceof ContractError && (code === undefined || err.code === code);
}
