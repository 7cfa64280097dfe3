/**
 * Token buckets per key: each key holds up to `capacity` tokens, refilled evenly at `amount`
 * tokens per `periodMs`. `take` spends one token, or answers how long until one is back.
 * Buckets that would be full again are dropped once the map grows large, so it stays as
 * small as the active keys. The request rate limiter and the synthesis quota are both this.
 */
export class TokenBuckets {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    readonly capacity: number,
    readonly amount: number,
    readonly periodMs: number,
    readonly now: () => number = Date.now,
  ) {}

  /** Spends one token of `key`: 0 when spent, else the milliseconds until one token is back. */
  take(key: string): number {
    const now = this.now();
    if (this.#buckets.size > 100_000) this.#sweep(now);
    const b = this.#buckets.get(key) ?? { tokens: this.capacity, at: now };
    b.tokens = Math.min(this.capacity, b.tokens + this.#refill(now - b.at));
    b.at = now;
    this.#buckets.set(key, b);
    if (b.tokens < 1) return ((1 - b.tokens) * this.periodMs) / this.amount;
    b.tokens -= 1;
    return 0;
  }

  /** Tokens refilled in `ms` (multiplied before dividing, so whole refills come out exact). */
  #refill(ms: number): number {
    return (ms * this.amount) / this.periodMs;
  }

  #sweep(now: number): void {
    for (const [k, b] of this.#buckets)
      if (b.tokens + this.#refill(now - b.at) >= this.capacity) this.#buckets.delete(k);
  }
}

/** A wait in milliseconds as the whole seconds of a Retry-After, at least one. */
export function retryAfterSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}
