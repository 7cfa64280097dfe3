import { ContractError } from "../contract/ContractError.js";

/** Default language-model syntheses per identity per hour (HUB_SYNTHESIS_QUOTA). */
export const DEFAULT_SYNTHESIS_QUOTA = 100;

/**
 * The per-identity synthesis quota: with a language-model key, synthesis
 * spends the operator's money, so each identity gets `perHour` calls, refilled evenly over
 * the hour (a token bucket, so there is no burst at the top of each hour). 0 turns it off.
 */
export class SynthesisQuota {
  readonly perHour: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(perHour: number, now: () => number = Date.now) {
    this.perHour = perHour;
    this.#now = now;
  }

  /** The quota configured by `HUB_SYNTHESIS_QUOTA` (a non-negative integer), else the default. */
  static fromEnv(env: Record<string, string | undefined>, now?: () => number): SynthesisQuota {
    const raw = env.HUB_SYNTHESIS_QUOTA;
    const n = raw !== undefined && /^[0-9]{1,9}$/.test(raw.trim()) ? Number(raw.trim()) : DEFAULT_SYNTHESIS_QUOTA;
    return new SynthesisQuota(n, now);
  }

  /** Spends one call of `identity`, or throws RATE_LIMITED with `details.limit` and `details.retry_after` (s). */
  take(identity: string): void {
    if (this.perHour <= 0) return;
    const now = this.#now();
    // Multiply before dividing: refills of whole calls come out exact.
    const refill = (ms: number) => (ms * this.perHour) / 3_600_000;
    if (this.#buckets.size > 100_000) {
      for (const [k, b] of this.#buckets) if (b.tokens + refill(now - b.at) >= this.perHour) this.#buckets.delete(k);
    }
    const b = this.#buckets.get(identity) ?? { tokens: this.perHour, at: now };
    b.tokens = Math.min(this.perHour, b.tokens + refill(now - b.at));
    b.at = now;
    this.#buckets.set(identity, b);
    if (b.tokens < 1) {
      // Milliseconds until one call is back, computed without dividing by a rate (exact for whole quotas).
      const waitMs = ((1 - b.tokens) * 3_600_000) / this.perHour;
      const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
      throw new ContractError(
        "RATE_LIMITED",
        `Synthesis quota of ${this.perHour} calls per hour exceeded; retry after ${retryAfter} s`,
        { reason: "synthesis_quota", limit: this.perHour, window_s: 3600, retry_after: retryAfter },
      );
    }
    b.tokens -= 1;
  }
}
