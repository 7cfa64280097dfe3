/** Who is calling, as request authentication established it (null fields: anonymous). */
export interface Caller {
  /** Identity key, lower-case hex, or null when unauthenticated. */
  identity: string | null;
  /** The access key that signed the request, lower-case hex. */
  accessKey: string | null;
  /** The client's address, when a transport knows it (anonymous callers are budgeted by it). */
  address?: string;
}

export const ANONYMOUS: Caller = Object.freeze({ identity: null, accessKey: null });
