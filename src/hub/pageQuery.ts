import { ContractError } from "../contract/ContractError.js";

/** Log and list paging defaults (docs/api.md). */
export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1000;

/** Parses an optional non-negative integer query value (numbers or decimal strings); bad values are 400. */
export function nonNegativeInteger(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
    throw new ContractError(
      "INVALID_REQUEST",
      `Invalid ${name}: expected a non-negative integer, got ${JSON.stringify(value)}`,
      {
        reason: "bad_query",
        field: name,
      },
    );
  }
  return n;
}

/**
 * `limit` (default 100, or the route's own `defaultLimit`; a larger one is capped at 1,000, as
 * git hosts cap page sizes) and `offset` (default 0).
 */
export function pageQuery(
  q: { limit?: unknown; offset?: unknown },
  defaultLimit = DEFAULT_PAGE,
): { limit: number; offset: number } {
  const limit = Math.min(nonNegativeInteger(q.limit, "limit") ?? defaultLimit, MAX_PAGE);
  return { limit, offset: nonNegativeInteger(q.offset, "offset") ?? 0 };
}
