/**
 * Maps anything thrown at the HTTP boundary onto the one error table. ContractErrors pass
 * through; fastify's own request errors become INVALID_REQUEST or PAYLOAD_TOO_LARGE naming
 * the field or limit; everything else is INTERNAL (the caller logs it, never echoes it).
 */
import { ContractError, isContractError } from "../contract/ContractError.js";
import { errorField } from "./validatorCompiler.js";

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message?: string;
  validation?: { instancePath?: string; message?: string; keyword?: string; params?: unknown }[];
  validationContext?: string;
}

/** The ContractError for `err`; `bodyLimit` is the limit of the route that was being read. */
export function toContractError(err: unknown, bodyLimit?: number): ContractError {
  if (isContractError(err)) return err;
  const e = (typeof err === "object" && err !== null ? err : {}) as FastifyLikeError;
  if (Array.isArray(e.validation)) {
    const first = e.validation[0];
    const field = errorField(e.validationContext ?? "body", first);
    return new ContractError("INVALID_REQUEST", `Invalid request: ${field} ${first?.message ?? "is invalid"}`, {
      reason: "schema",
      field,
      keyword: first?.keyword,
    });
  }
  switch (e.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new ContractError(
        "PAYLOAD_TOO_LARGE",
        `Request body is larger than the limit of ${bodyLimit ?? "the route's"} bytes`,
        { reason: "body_too_large", limit: bodyLimit },
      );
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_TYPE":
    case "FST_ERR_BAD_URL":
    case "FST_ERR_ASYNC_CONSTRAINT":
      return new ContractError("INVALID_REQUEST", `Invalid request: ${e.message ?? e.code}`, {
        reason: e.code.toLowerCase(),
      });
  }
  // A client that closed its connection while its body was read: its error, not the hub's
  // (Node's "aborted", which fastify marks 400).
  if (e.code === "ECONNRESET" && typeof e.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) {
    return new ContractError("INVALID_REQUEST", "The client closed the connection before its body was read", {
      reason: "client_aborted",
    });
  }
  // Other client errors fastify raises itself (bad encodings) carry a 4xx status.
  if (typeof e.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500 && e.code?.startsWith("FST_")) {
    return new ContractError("INVALID_REQUEST", `Invalid request: ${e.message ?? e.code}`, {
      reason: e.code.toLowerCase(),
    });
  }
  return new ContractError("INTERNAL", "Internal error", undefined, { cause: err });
}
