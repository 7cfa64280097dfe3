import { ContractError } from "../contract/ContractError.js";
import { retryAfterSeconds, TokenBuckets } from "../lib/TokenBuckets.js";

/** Default language-model syntheses per identity per hour (HUB_SYNTHESIS_QUOTA). */
export const DEFAULT_SYNTHESIS_QUOTA = 100;

/**
 * The per-identity synthesis quota: with a language-model key, synthesis
 * spends the operator's money, so each identity gets `perHour` calls, refilled evenly over
 * the hour (a token bucket, so there is no burst at the top of each hour). 0 turns it off.
 */
export class SynthesisQuota {
  readonly perHour: number;
  readonly #buckets: TokenBuckets;

  constructor(perHour: number, now: () => number = Date.now) {
    this.perHour = perHour;
    this.#buckets = new TokenBuckets(perHour, perHour, 3_600_000, now);
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
    const waitMs = this.#buckets.take(identity);
    if (waitMs > 0) {
      const retryAfter = retryAfterSeconds(waitMs);
      throw new ContractError(
        "RATE_LIMITED",
        `Synthesis quota of ${this.perHour} calls per hour exceeded; retry after ${retryAfter} s`,
        { reason: "synthesis_quota", limit: this.perHour, window_s: 3600, retry_after: retryAfter },
      );
    }
  }
}
