/**
 * The store seams authentication needs (the hub's Store has exactly these methods). Kept as
 * a narrow interface so the auth code can be tested against `MemoryAuthStore` and never reaches
 * contract data.
 */

/** Either a value or a promise of it: the SQLite store answers synchronously, PostgreSQL does not. */
export type Awaitable<T> = T | Promise<T>;

/** One registered access key (keys as lower-case hex, times in seconds). */
export interface AccessKeyRecord {
  accessKey: string;
  identity: string;
  createdAt: number;
  revokedAt: number | null;
}

export interface AuthStore {
  /**
   * Registers `accessKey` for `identity`; re-registering the same pair returns the stored
   * record, a key of another identity or a revoked key is CONFLICT.
   */
  registerAccessKey(identity: string, accessKey: string, createdAt: number): Awaitable<AccessKeyRecord>;
  getAccessKey(accessKey: string): Awaitable<AccessKeyRecord | null>;
  /** Marks the key revoked (the first revocation time wins); returns the record, or null when unknown. */
  revokeAccessKey(accessKey: string, revokedAt: number): Awaitable<AccessKeyRecord | null>;
  listAccessKeys(identity: string): Awaitable<AccessKeyRecord[]>;
  /** Records a nonce of a key until `expiresAt` (seconds); false when it was already seen (a replay). */
  useNonce(accessKey: string, nonce: string, expiresAt: number): Awaitable<boolean>;
}
