import { ContractError } from "../contract/ContractError.js";
import { retryAfterSeconds, TokenBuckets } from "../lib/TokenBuckets.js";

/** Which bucket refused a request: `details.scope` of a `rate_limited` refusal. */
export type RateLimitScope = "key" | "identity" | "address";

/**
 * Token buckets of requests (docs/security.md: 500 requests/s, bursts of 1,000): one per
 * access key and one per identity for signed requests, one per client address for anonymous
 * ones and for failed authentications. A signed request spends a token of its key and one of
 * its identity, so an identity's keys together get what one key gets: registering another key
 * is free and unlimited, and would otherwise buy another bucket. Both buckets have the same
 * rate (`--rate-limit`), so a client with one key sees the key's limit only.
 * `perSecond` 0 turns limiting off. Idle buckets are dropped, so the maps stay as small as
 * the active keys.
 */
export class RateLimiter {
  readonly perSecond: number;
  readonly burst: number;
  readonly #now: () => number;
  /** Access keys, and `ip:<address key>` (clientAddressKey; never a key's 64 hex digits). */
  readonly #keys: TokenBuckets;
  /** Identities, in a map of their own: an identity's key may also be registered as an access key. */
  readonly #identities: TokenBuckets;

  constructor(perSecond: number, burst = perSecond * 2, now: () => number = Date.now) {
    this.perSecond = perSecond;
    this.burst = burst;
    this.#now = now;
    this.#keys = new TokenBuckets(burst, perSecond, 1000, now);
    this.#identities = new TokenBuckets(burst, perSecond, 1000, now);
  }

  /**
   * Takes one token of a verified request's access key and one of its identity, or throws
   * RATE_LIMITED (`details.scope` "key" or "identity") and spends neither: a refused request
   * is not counted. Without an identity only the key's bucket is taken. This is on every
   * signed request's path: one clock read, one map lookup per bucket.
   */
  take(accessKey: string, identity: string | null = null): void {
    if (this.perSecond <= 0) return;
    const now = this.#now();
    const waitMs = this.#keys.take(accessKey, now);
    if (waitMs > 0) throw this.#refusal("key", waitMs);
    if (identity === null) return;
    const identityWaitMs = this.#identities.take(identity, now);
    if (identityWaitMs > 0) {
      this.#keys.giveBack(accessKey);
      throw this.#refusal("identity", identityWaitMs);
    }
  }

  /**
   * Takes one token of a client address (anonymous requests, failed authentications), or
   * throws RATE_LIMITED. `address` is its clientAddressKey, so an IPv6 /64 has one bucket.
   */
  takeAddress(address: string): void {
    if (this.perSecond <= 0) return;
    const waitMs = this.#keys.take(`ip:${address}`);
    if (waitMs > 0) throw this.#refusal("address", waitMs);
  }

  /** RATE_LIMITED with `details.reason` "rate_limited", the bucket's scope, its limit and `retry_after` (s). */
  #refusal(scope: RateLimitScope, waitMs: number): ContractError {
    // Whole seconds, at least one: the Retry-After header has no finer unit.
    const retryAfter = retryAfterSeconds(waitMs);
    return new ContractError(
      "RATE_LIMITED",
      `Rate limit of ${this.perSecond} requests/s (bursts of ${this.burst}) per ${scope} exceeded; retry after ${retryAfter} s`,
      { reason: "rate_limited", scope, limit: this.perSecond, burst: this.burst, retry_after: retryAfter },
    );
  }
}

const shared = new WeakMap<object, RateLimiter>();

/** The one limiter of an adapter configuration, so REST, JSON-RPC and WebSocket share each bucket. */
export function limiterFor(options: { rateLimit?: number; rateLimiter?: RateLimiter }): RateLimiter {
  if (options.rateLimiter) return options.rateLimiter;
  let limiter = shared.get(options);
  if (!limiter) {
    limiter = new RateLimiter(options.rateLimit ?? 500);
    shared.set(options, limiter);
  }
  return limiter;
}
