/**
 * The answer to a request Node's HTTP parser refused before fastify saw it (docs/api.md: the
 * body is still `{error, code, details?}`): a malformed request line or header, a bad
 * `Content-Length` or `Transfer-Encoding`, headers over the size limit, a request that took
 * too long to arrive. `details.reason` says which.
 */
import { ContractError } from "../contract/ContractError.js";
import { httpStatusOf } from "./errorTable.js";

/** Parser error codes (llhttp's `HPE_*`) by the reason a client is told. */
const REASONS: Record<string, string> = {
  HPE_INVALID_METHOD: "bad_request_line",
  HPE_INVALID_URL: "bad_request_line",
  HPE_INVALID_VERSION: "bad_request_line",
  HPE_INVALID_CONSTANT: "bad_request_line",
  HPE_INVALID_HEADER_TOKEN: "bad_header",
  HPE_INVALID_HEADER_VALUE: "bad_header",
  HPE_LF_EXPECTED: "bad_header",
  HPE_CR_EXPECTED: "bad_header",
  HPE_INVALID_CONTENT_LENGTH: "bad_content_length",
  HPE_UNEXPECTED_CONTENT_LENGTH: "bad_content_length",
  HPE_INVALID_TRANSFER_ENCODING: "bad_transfer_encoding",
  HPE_INVALID_CHUNK_SIZE: "bad_transfer_encoding",
  HPE_CHUNK_EXTENSIONS_OVERFLOW: "bad_transfer_encoding",
};

/**
 * The status and refusal for parser or timeout error `err`. Two keep HTTP's own status, which
 * clients and proxies act on: 431 for headers over `maxHeaderBytes` (code PAYLOAD_TOO_LARGE)
 * and 408 for a request not received in time (INVALID_REQUEST); the rest are 400.
 */
export function clientErrorAnswer(
  err: { code?: string },
  maxHeaderBytes: number,
): { status: number; error: ContractError } {
  if (err.code === "HPE_HEADER_OVERFLOW") {
    const error = new ContractError(
      "PAYLOAD_TOO_LARGE",
      `Request line and headers are larger than the limit of ${maxHeaderBytes} bytes`,
      { reason: "headers_too_large", limit: maxHeaderBytes },
    );
    return { status: 431, error };
  }
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    const error = new ContractError("INVALID_REQUEST", "The request did not arrive in time (headers or body stalled)", {
      reason: "request_timeout",
    });
    return { status: 408, error };
  }
  const reason = REASONS[err.code ?? ""] ?? "malformed_http";
  const error = new ContractError("INVALID_REQUEST", `Malformed HTTP request (${reason.replaceAll("_", " ")})`, {
    reason,
  });
  return { status: httpStatusOf(error), error };
}
