import { ContractError } from "../contract/ContractError.js";

/**
 * Subscriptions one caller may hold at once over all its WebSocket connections, by default.
 * The per-connection cap alone let one address hold 10,000 anonymous subscriptions of one
 * contract (100 connections of 100) and an identity any number, and each commit of that
 * contract builds one event per subscription. 1,000 is ten full connections: more than a
 * client watching many contracts, or many users behind one NAT address, ordinarily need,
 * while it bounds what one caller's commit costs the hub to a thousand events.
 */
export const DEFAULT_CALLER_SUBSCRIPTIONS = 1_000;

/** Who a subscription is counted against: its identity, or its client address when anonymous. */
export interface SubscriptionHolder {
  identity: string | null;
  /** clientAddressKey's key of the socket (an IPv6 /64 is one address). */
  address: string;
}

/**
 * Counts the subscriptions each caller holds across its connections (docs/security.md,
 * "Subscriptions per caller"); 0 turns the cap off. Counts are this hub instance's: another
 * instance keeps its own.
 */
export class CallerSubscriptions {
  readonly #held = new Map<string, number>();

  constructor(readonly perCaller: number) {}

  /**
   * Takes a place for one more subscription of `holder`, or throws RATE_LIMITED
   * `too_many_subscriptions` past the cap. Returns the place's release, which frees it once
   * however often it is called.
   */
  take(holder: SubscriptionHolder): () => void {
    if (this.perCaller <= 0) return () => {};
    const scope = holder.identity !== null ? "identity" : "address";
    const key = `${scope}:${holder.identity ?? holder.address}`;
    const n = this.#held.get(key) ?? 0;
    if (n >= this.perCaller) {
      throw new ContractError(
        "RATE_LIMITED",
        scope === "identity"
          ? `This identity already holds ${this.perCaller} subscriptions over its connections (the limit): unsubscribe one`
          : `This address already holds ${this.perCaller} anonymous subscriptions over its connections (the limit): unsubscribe one, or authenticate`,
        { reason: "too_many_subscriptions", scope, limit: this.perCaller },
      );
    }
    this.#held.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#held.get(key) ?? 1) - 1;
      if (left <= 0) this.#held.delete(key);
      else this.#held.set(key, left);
    };
  }
}

const shared = new WeakMap<object, CallerSubscriptions>();

/** The one count of an adapter configuration, so the REST and JSON-RPC ports' sockets count together. */
export function callerSubscriptionsFor(options: { callerSubscriptions?: number }): CallerSubscriptions {
  let counter = shared.get(options);
  if (!counter) {
    counter = new CallerSubscriptions(options.callerSubscriptions ?? DEFAULT_CALLER_SUBSCRIPTIONS);
    shared.set(options, counter);
  }
  return counter;
}
