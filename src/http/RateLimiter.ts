import { ContractError } from "../contract/ContractError.js";

/**
 * Per-key token buckets (PROTOCOL.md §13: 500 requests/s, bursts of 1,000). `perSecond` 0
 * turns limiting off. Idle buckets are dropped, so the map stays as small as the active keys.
 */
export class RateLimiter {
  readonly #perSecond: number;
  readonly #burst: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(perSecond: number, burst = perSecond * 2, now: () => number = Date.now) {
    this.#perSecond = perSecond;
    this.#burst = burst;
    this.#now = now;
  }

  /** Takes one token for `key`, or throws RATE_LIMITED naming the limit. */
  take(key: string): void {
    if (this.#perSecond <= 0) return;
    const now = this.#now();
    if (this.#buckets.size > 100_000) this.#sweep(now);
    const b = this.#buckets.get(key) ?? { tokens: this.#burst, at: now };
    b.tokens = Math.min(this.#burst, b.tokens + ((now - b.at) / 1000) * this.#perSecond);
    b.at = now;
    if (b.tokens < 1) {
      this.#buckets.set(key, b);
      throw new ContractError(
        "RATE_LIMITED",
        `Rate limit of ${this.#perSecond} requests/s (bursts of ${this.#burst}) exceeded`,
        { reason: "rate_limited", limit: this.#perSecond, burst: this.#burst },
      );
    }
    b.tokens -= 1;
    this.#buckets.set(key, b);
  }

  #sweep(now: number): void {
    const full = (this.#burst / this.#perSecond) * 1000;
    for (const [k, b] of this.#buckets) if (now - b.at > full) this.#buckets.delete(k);
  }
}
