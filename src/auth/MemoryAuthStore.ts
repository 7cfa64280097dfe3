import { ContractError } from "../contract/ContractError.js";
import type { AccessKeyRecord, AuthStore } from "./AuthStore.js";

/** An in-memory AuthStore for tests and for hubs run without persistence of keys. */
export class MemoryAuthStore implements AuthStore {
  readonly #keys = new Map<string, AccessKeyRecord>();
  readonly #nonces = new Map<string, number>();
  readonly #now: () => number;

  /** `nowSeconds` is the clock nonce expiry is compared with (tests pin it with the authenticator's). */
  constructor(nowSeconds: () => number = () => Date.now() / 1000) {
    this.#now = nowSeconds;
  }

  /** Stores the key unless present (CONFLICT when revoked or another identity's); returns the record. */
  registerAccessKey(identity: string, accessKey: string, createdAt: number): AccessKeyRecord {
    const existing = this.#keys.get(accessKey);
    if (existing?.revokedAt != null) {
      throw new ContractError("CONFLICT", "Access key was revoked", { reason: "access_key_revoked" });
    }
    if (existing && existing.identity !== identity) {
      throw new ContractError("CONFLICT", "Access key belongs to another identity", { reason: "access_key_taken" });
    }
    if (existing) return { ...existing };
    const stored: AccessKeyRecord = { accessKey, identity, createdAt, revokedAt: null };
    this.#keys.set(accessKey, stored);
    return { ...stored };
  }

  /** The key's record, or null. */
  getAccessKey(accessKey: string): AccessKeyRecord | null {
    const r = this.#keys.get(accessKey);
    return r ? { ...r } : null;
  }

  /** Revokes the key once; later calls keep the first time. */
  revokeAccessKey(accessKey: string, revokedAt: number): AccessKeyRecord | null {
    const r = this.#keys.get(accessKey);
    if (!r) return null;
    if (r.revokedAt === null) r.revokedAt = revokedAt;
    return { ...r };
  }

  /** Keys of an identity, oldest first. */
  listAccessKeys(identity: string): AccessKeyRecord[] {
    return [...this.#keys.values()].filter((r) => r.identity === identity).map((r) => ({ ...r }));
  }

  /** True the first time a (key, nonce) pair is seen while unexpired. */
  useNonce(accessKey: string, nonce: string, expiresAt: number): boolean {
    const now = this.#now();
    // Expired entries can go: the timestamp window already refuses their requests.
    if (this.#nonces.size > 10_000) for (const [k, exp] of this.#nonces) if (exp < now) this.#nonces.delete(k);
    const id = `${accessKey}:${nonce}`;
    const seen = this.#nonces.get(id);
    if (seen !== undefined && seen >= now) return false;
    this.#nonces.set(id, expiresAt);
    return true;
  }
}
