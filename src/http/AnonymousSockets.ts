import { ContractError } from "../contract/ContractError.js";

/**
 * Caps the WebSocket connections opened without credentials, per client address (default
 * 100): past the cap the upgrade is refused with 429 RATE_LIMITED (`anonymous_sockets`).
 * A connection counts from its upgrade until its TCP socket closes. 0 turns the cap off.
 * Addresses are clientAddressKey's keys: an IPv6 /64 is one address here.
 */
export class AnonymousSockets {
  readonly #open = new Map<string, number>();

  constructor(readonly perAddress: number) {}

  /** Counts one more connection from `address` until `closed` fires, or throws RATE_LIMITED past the cap. */
  admit(address: string, onClose: (release: () => void) => void): void {
    if (this.perAddress <= 0) return;
    const n = this.#open.get(address) ?? 0;
    if (n >= this.perAddress) {
      throw new ContractError(
        "RATE_LIMITED",
        `At most ${this.perAddress} anonymous WebSocket connections per address; authenticate or close one`,
        { reason: "anonymous_sockets", limit: this.perAddress, retry_after: 1 },
      );
    }
    this.#open.set(address, n + 1);
    let released = false;
    onClose(() => {
      if (released) return;
      released = true;
      const left = (this.#open.get(address) ?? 1) - 1;
      if (left <= 0) this.#open.delete(address);
      else this.#open.set(address, left);
    });
  }

  /** Open anonymous connections from `address`. */
  count(address: string): number {
    return this.#open.get(address) ?? 0;
  }
}

const shared = new WeakMap<object, AnonymousSockets>();

/** The one counter of an adapter configuration, so the REST and JSON-RPC ports share each address's cap. */
export function anonymousSocketsFor(options: { anonymousSockets?: number }): AnonymousSockets {
  let counter = shared.get(options);
  if (!counter) {
    counter = new AnonymousSockets(options.anonymousSockets ?? 100);
    shared.set(options, counter);
  }
  return counter;
}
