import { ContractError } from "../contract/ContractError.js";
import { retryAfterSeconds, TokenBuckets } from "../lib/TokenBuckets.js";

/**
 * Token buckets per key (docs/security.md: 500 requests/s, bursts of 1,000): an access key
 * for signed requests, `ip:<address>` for anonymous ones and for failed authentications.
 * `perSecond` 0 turns limiting off. Idle buckets are dropped, so the map stays as small as
 * the active keys.
 */
export class RateLimiter {
  readonly perSecond: number;
  readonly burst: number;
  readonly #buckets: TokenBuckets;

  constructor(perSecond: number, burst = perSecond * 2, now: () => number = Date.now) {
    this.perSecond = perSecond;
    this.burst = burst;
    this.#buckets = new TokenBuckets(burst, perSecond, 1000, now);
  }

  /** Takes one token for `key`, or throws RATE_LIMITED with `details.limit` and `details.retry_after` (seconds). */
  take(key: string): void {
    if (this.perSecond <= 0) return;
    const waitMs = this.#buckets.take(key);
    if (waitMs > 0) {
      // Whole seconds, at least one: the Retry-After header has no finer unit.
      const retryAfter = retryAfterSeconds(waitMs);
      throw new ContractError(
        "RATE_LIMITED",
        `Rate limit of ${this.perSecond} requests/s (bursts of ${this.burst}) exceeded; retry after ${retryAfter} s`,
        { reason: "rate_limited", limit: this.perSecond, burst: this.burst, retry_after: retryAfter },
      );
    }
  }
}

const shared = new WeakMap<object, RateLimiter>();

/** The one limiter of an adapter configuration, so REST, JSON-RPC and WebSocket share each key's budget. */
export function limiterFor(options: { rateLimit?: number; rateLimiter?: RateLimiter }): RateLimiter {
  if (options.rateLimiter) return options.rateLimiter;
  let limiter = shared.get(options);
  if (!limiter) {
    limiter = new RateLimiter(options.rateLimit ?? 500);
    shared.set(options, limiter);
  }
  return limiter;
}
