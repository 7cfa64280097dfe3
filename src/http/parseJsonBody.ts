import { ContractError } from "../contract/ContractError.js";
import { safeJsonParse } from "../contract/canonicalJson.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Parses a request body with the hub's hardened parser (depth, big integers, `__proto__`),
 * refusing bytes that are not UTF-8 instead of silently replacing them. An empty body is
 * `undefined`, so the route's schema reports the missing body.
 */
export function parseJsonBody(raw: Buffer, maxDepth?: number): unknown {
  if (raw.length === 0) return undefined;
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new ContractError("INVALID_REQUEST", "Cannot parse JSON: the request body is not valid UTF-8", {
      reason: "body_not_utf8",
    });
  }
  return safeJsonParse(text, maxDepth === undefined ? {} : { maxDepth });
}
