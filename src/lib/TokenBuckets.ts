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

  /**
   * Spends one token of `key`: 0 when spent, else the milliseconds until one token is back.
   * `now` lets a caller taking from several buckets for one request read the clock once.
   */
  take(key: string, now = this.now()): number {
    if (this.#buckets.size > 100_000) this.#sweep(now);
    let b = this.#buckets.get(key);
    // A known key costs one lookup: its bucket is updated in place.
    if (b === undefined) {
      b = { tokens: this.capacity, at: now };
      this.#buckets.set(key, b);
    }
    b.tokens = Math.min(this.capacity, b.tokens + this.#refill(now - b.at));
    b.at = now;
    if (b.tokens < 1) return ((1 - b.tokens) * this.periodMs) / this.amount;
    b.tokens -= 1;
    return 0;
  }

  /** Returns the token `take` just spent for `key` (a request another bucket then refused). */
  giveBack(key: string): void {
    const b = this.#buckets.get(key);
    if (b !== undefined) b.tokens = Math.min(this.capacity, b.tokens + 1);
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
