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

  /**
   * The quota configured by `HUB_SYNTHESIS_QUOTA` (a non-negative integer), else the default.
   * Anything else throws (`details.reason: "bad_config"`), so `start` refuses it rather than
   * quietly running with a quota the operator did not ask for.
   */
  static fromEnv(env: Record<string, string | undefined>, now?: () => number): SynthesisQuota {
    const raw = env.HUB_SYNTHESIS_QUOTA?.trim();
    if (raw === undefined || raw === "") return new SynthesisQuota(DEFAULT_SYNTHESIS_QUOTA, now);
    if (!/^[0-9]{1,9}$/.test(raw))
      throw new ContractError(
        "INTERNAL",
        `HUB_SYNTHESIS_QUOTA must be a non-negative integer, got ${JSON.stringify(env.HUB_SYNTHESIS_QUOTA)}`,
        { reason: "bad_config", variable: "HUB_SYNTHESIS_QUOTA" },
      );
    return new SynthesisQuota(Number(raw), now);
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
