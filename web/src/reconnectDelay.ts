/**
 * How long the explorer waits before it connects and subscribes again (docs/explorer.md). A
 * fixed short wait had every open tab of a refused visitor knock again at once, each new
 * attempt spending the very budget that refused it, and kept knocking on a hub that was down.
 */

/** The first wait; each failure in a row doubles it, up to CAP_MS. */
const FIRST_MS = 1_000;
const CAP_MS = 30_000;
/** Up to this fraction of the wait is added at random, so tabs refused together spread out. */
const JITTER = 0.25;
/**
 * A retry hint past this is taken as this: setTimeout treats a wait over 2^31 - 1 ms as none
 * at all, and no refusal a subscribe meets asks for more than a minute.
 */
const MAX_HINT_MS = 3_600_000;

/**
 * The wait in milliseconds after `failures` (1 or more) failed attempts in a row: the backoff
 * (1 s doubling to 30 s) or the hub's `retry_after` hint (seconds, in the `data.details` of
 * `refusal`, the JSON-RPC error of a refused `subscribe`; none after a dropped connection),
 * whichever is longer, plus up to a quarter of it more by `random` (in [0, 1), Math.random()).
 */
export function reconnectDelay(failures: number, refusal: unknown, random: number): number {
  const doublings = Number.isFinite(failures) ? Math.max(0, Math.floor(failures) - 1) : 0;
  const backoff = Math.min(CAP_MS, FIRST_MS * 2 ** doublings);
  const wait = Math.max(backoff, retryAfterMs(refusal));
  const spread = Number.isFinite(random) ? Math.min(1, Math.max(0, random)) : 0;
  return Math.round(wait * (1 + JITTER * spread));
}

/** The hint of a JSON-RPC error `{code, message, data: {code, details: {retry_after}}}` in ms; 0 without one. */
function retryAfterMs(refusal: unknown): number {
  const data = field(refusal, "data");
  const seconds = field(field(data, "details"), "retry_after");
  if (typeof seconds !== "number" || !(seconds > 0)) return 0;
  return Math.min(MAX_HINT_MS, seconds * 1000);
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
