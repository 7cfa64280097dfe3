import { ContractError } from "../contract/ContractError.js";
import { retryAfterSeconds, TokenBuckets } from "../lib/TokenBuckets.js";

/** Default new identities per client address per hour (`--registration-limit`, HUB_REGISTRATION_LIMIT). */
export const DEFAULT_REGISTRATION_LIMIT = 20;

/**
 * New identities per client address (docs/security.md): an identity costs nothing to
 * register and brings its own work budget and request bucket, so without this one address
 * could give itself any number of allowances. Each address may register `perHour` identities
 * the hub does not know yet, refilled evenly over the hour (a token bucket: no burst at the top
 * of each hour). Only new identities count: a new access key of a known identity, a
 * registration sent again and a revocation create none. 0 turns the limit off. Addresses are
 * clientAddressKey's keys: an IPv6 /64 is one address here.
 */
export class RegistrationLimit {
  readonly perHour: number;
  readonly #buckets: TokenBuckets;

  constructor(perHour: number, now: () => number = Date.now) {
    this.perHour = perHour;
    this.#buckets = new TokenBuckets(perHour, perHour, 3_600_000, now);
  }

  /** Spends one new identity of `address`, or throws RATE_LIMITED with `details.limit` and `details.retry_after` (s). */
  take(address: string): void {
    if (this.perHour <= 0) return;
    const waitMs = this.#buckets.take(address);
    if (waitMs > 0) {
      const retryAfter = retryAfterSeconds(waitMs);
      throw new ContractError(
        "RATE_LIMITED",
        `At most ${this.perHour} new identities per address per hour; retry after ${retryAfter} s`,
        { reason: "registration_limit", limit: this.perHour, window_s: 3600, retry_after: retryAfter },
      );
    }
  }
}

const shared = new WeakMap<object, RegistrationLimit>();

/** The one limit of an adapter configuration, so REST, JSON-RPC and WebSocket share each address's allowance. */
export function registrationLimitFor(options: {
  registrationLimit?: number;
  registrationLimiter?: RegistrationLimit;
}): RegistrationLimit {
  if (options.registrationLimiter) return options.registrationLimiter;
  let limit = shared.get(options);
  if (!limit) {
    limit = new RegistrationLimit(options.registrationLimit ?? DEFAULT_REGISTRATION_LIMIT);
    shared.set(options, limit);
  }
  return limit;
}
