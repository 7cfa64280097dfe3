import { safeJsonParse } from "../contract/canonicalJson.js";
import { decodeUtf8 } from "./decodeUtf8.js";

/**
 * Parses a request body with the hub's hardened parser (depth, big integers, `__proto__`),
 * refusing bytes that are not UTF-8 instead of silently replacing them. An empty body is
 * `undefined`, so the route's schema reports the missing body.
 */
export function parseJsonBody(raw: Buffer, maxDepth?: number): unknown {
  if (raw.length === 0) return undefined;
  return safeJsonParse(decodeUtf8(raw), maxDepth === undefined ? {} : { maxDepth });
}
