import { ContractError } from "../../contract/ContractError.js";

/**
 * Each caller's allowance of expensive work (model checks, replays, long pulls), in
 * milliseconds of CPU per minute: a bucket per identity (per address for anonymous callers)
 * that refills continuously up to one minute's allowance. Work is charged after it ran, so a
 * bucket may go below zero; while it is, `admit` refuses new expensive work with
 * RATE_LIMITED (`work_budget`) and the seconds until it is positive again. 0 turns it off.
 */
export class WorkBudget {
  readonly msPerMinute: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, { ms: number; at: number }>();

  constructor(msPerMinute: number, now: () => number = Date.now) {
    this.msPerMinute = msPerMinute;
    this.#now = now;
  }

  /** Throws RATE_LIMITED when `key` has spent its allowance; `details.retry_after` in seconds. */
  admit(key: string): void {
    if (this.msPerMinute <= 0) return;
    const left = this.#refill(key);
    if (left >= 0) return;
    const retryAfter = Math.max(1, Math.ceil((-left / this.msPerMinute) * 60));
    throw new ContractError(
      "RATE_LIMITED",
      `Expensive work budget of ${this.msPerMinute / 1000} CPU-seconds a minute spent; retry after ${retryAfter} s`,
      { reason: "work_budget", limit_ms_per_minute: this.msPerMinute, retry_after: retryAfter },
    );
  }

  /** Charges `ms` of work to `key`. */
  charge(key: string, ms: number): void {
    if (this.msPerMinute <= 0 || !(ms > 0)) return;
    const left = this.#refill(key);
    this.#buckets.set(key, { ms: left - ms, at: this.#now() });
  }

  /** What `key` has left now (may be negative). */
  remaining(key: string): number {
    return this.msPerMinute <= 0 ? Number.POSITIVE_INFINITY : this.#refill(key);
  }

  #refill(key: string): number {
    const now = this.#now();
    if (this.#buckets.size > 100_000) this.#sweep(now);
    const b = this.#buckets.get(key);
    if (b === undefined) return this.msPerMinute;
    return Math.min(this.msPerMinute, b.ms + ((now - b.at) / 60_000) * this.msPerMinute);
  }

  #sweep(now: number): void {
    for (const [k, b] of this.#buckets)
      if (b.ms + ((now - b.at) / 60_000) * this.msPerMinute >= this.msPerMinute) this.#buckets.delete(k);
  }
}
