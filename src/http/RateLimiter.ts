import { ContractError } from "../contract/ContractError.js";

/**
 * Token buckets per key (PROTOCOL.md §13: 500 requests/s, bursts of 1,000): an access key
 * for signed requests, `ip:<address>` for anonymous ones and for failed authentications.
 * `perSecond` 0 turns limiting off. Idle buckets are dropped, so the map stays as small as
 * the active keys.
 */
export class RateLimiter {
  readonly perSecond: number;
  readonly burst: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(perSecond: number, burst = perSecond * 2, now: () => number = Date.now) {
    this.perSecond = perSecond;
    this.burst = burst;
    this.#now = now;
  }

  /** Takes one token for `key`, or throws RATE_LIMITED with `details.limit` and `details.retry_after` (seconds). */
  take(key: string): void {
    if (this.perSecond <= 0) return;
    const now = this.#now();
    if (this.#buckets.size > 100_000) this.#sweep(now);
    const b = this.#buckets.get(key) ?? { tokens: this.burst, at: now };
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.perSecond);
    b.at = now;
    this.#buckets.set(key, b);
    if (b.tokens < 1) {
      // Whole seconds, at least one: the Retry-After header has no finer unit.
      const retryAfter = Math.max(1, Math.ceil((1 - b.tokens) / this.perSecond));
      throw new ContractError(
        "RATE_LIMITED",
        `Rate limit of ${this.perSecond} requests/s (bursts of ${this.burst}) exceeded; retry after ${retryAfter} s`,
        { reason: "rate_limited", limit: this.perSecond, burst: this.burst, retry_after: retryAfter },
      );
    }
    b.tokens -= 1;
  }

  #sweep(now: number): void {
    const full = (this.burst / this.perSecond) * 1000;
    for (const [k, b] of this.#buckets) if (now - b.at > full) this.#buckets.delete(k);
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
