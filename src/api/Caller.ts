/** Who is calling, as request authentication established it (null fields: anonymous). */
export interface Caller {
  /** Identity key, lower-case hex, or null when unauthenticated. */
  identity: string | null;
  /** The access key that signed the request, lower-case hex. */
  accessKey: string | null;
  /**
   * The key of the client's address, when a transport knows it (anonymous callers are
   * budgeted by it): clientAddressKey's, so an IPv6 client is its /64.
   */
  address?: string;
  /**
   * The request's nonce when authentication left it for the request's append to spend
   * (docs/storage.md, "The request nonce"): the append writes it in its own transaction,
   * and the transport spends it on its own when the request appended nothing.
   */
  nonce?: PendingNonce;
}

/** A verified request nonce not yet recorded; `spent` turns true once a transaction stored it. */
export interface PendingNonce {
  accessKey: string;
  nonce: string;
  /** Until when (seconds) the nonce is remembered: the end of the request's time window. */
  expiresAt: number;
  spent: boolean;
}

export const ANONYMOUS: Caller = Object.freeze({ identity: null, accessKey: null });
