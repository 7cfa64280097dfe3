/**
 * Identity and access-key management (docs/api.md `/register`, `/access`, `/access/revoke`):
 * proof of possession on registration, revocation by a sibling key or the identity key, and
 * a revocation signal so live subscriptions of a revoked key can be closed.
 */

import type { Caller } from "../api/Caller.js";
import type { RegisterBody, RevokeBody } from "../api/schemas.js";
import { ContractError } from "../contract/ContractError.js";
import { decodeSignature, encodeHex, formatIdentity, parseIdentity } from "../contract/hex.js";
import { verifyAsync } from "../contract/keys.js";
import type { AccessKeyRecord, AuthStore } from "./AuthStore.js";
import { registrationText, revocationText } from "./signingText.js";

/** `POST /register` response. */
export interface RegisterResult {
  identity: string;
  access_key: string;
  created_at: number;
}

/** `GET /access` response. */
export interface AccessList {
  identity: string;
  access_keys: { access_key: string; created_at: number; revoked_at: number | null }[];
}

export interface AccessRegistryOptions {
  store: AuthStore;
  /** Current time in seconds (tests pin it). */
  nowSeconds?: () => number;
}

/** Registers, lists and revokes access keys; tells listeners about revocations. */
export class AccessRegistry {
  readonly #store: AuthStore;
  readonly #now: () => number;
  readonly #revokeListeners = new Set<(accessKey: string) => void>();

  constructor(options: AccessRegistryOptions) {
    this.#store = options.store;
    this.#now = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  }

  /**
   * Registers an access key for an identity after both keys proved possession. When the
   * identity is new to the hub (no key of it on record, revoked ones included),
   * `admitNewIdentity` is asked first and may throw (the transport's per-address limit,
   * docs/security.md); then nothing is stored. A registration sent again and a new key of a
   * known identity create no identity and are not asked about.
   */
  async register(body: RegisterBody, admitNewIdentity?: () => void): Promise<RegisterResult> {
    const identity = encodeHex(parseIdentity(body.identity_pubkey, "identity_pubkey"));
    const access = encodeHex(parseIdentity(body.access_pubkey, "access_pubkey"));
    const identitySig = decodeSignature(body.identity_signature, "identity_signature");
    const accessSig = decodeSignature(body.access_signature, "access_signature");
    const text = Buffer.from(registrationText(identity, access), "utf8");
    if (!(await verifyAsync(Buffer.from(identity, "hex"), text, identitySig))) {
      throw unauthorized("identity_signature does not verify", "bad_identity_signature");
    }
    if (!(await verifyAsync(Buffer.from(access, "hex"), text, accessSig))) {
      throw unauthorized("access_signature does not verify", "bad_access_signature");
    }
    const existing = await this.#store.getAccessKey(access);
    if (existing) checkReusable(existing, identity);
    else if (admitNewIdentity && (await this.#store.listAccessKeys(identity)).length === 0) admitNewIdentity();
    const stored = await this.#store.registerAccessKey(identity, access, this.#now());
    checkReusable(stored, identity);
    return { identity: formatIdentity(Buffer.from(identity, "hex")), access_key: access, created_at: stored.createdAt };
  }

  /** The caller's identity and all its access keys. */
  async list(caller: Caller): Promise<AccessList> {
    const identity = requireIdentity(caller);
    const keys = await this.#store.listAccessKeys(identity);
    return {
      identity: formatIdentity(Buffer.from(identity, "hex")),
      access_keys: keys.map((k) => ({ access_key: k.accessKey, created_at: k.createdAt, revoked_at: k.revokedAt })),
    };
  }

  /**
   * Revokes `body.access_key`: the caller must be authenticated as the key's identity, unless
   * the body carries `identity_pubkey` + `identity_signature` over the revocation text.
   */
  async revoke(caller: Caller, body: RevokeBody): Promise<{ access_key: string; revoked_at: number }> {
    const access = encodeHex(parseIdentity(body.access_key, "access_key"));
    let identity: string;
    if (body.identity_signature !== undefined || body.identity_pubkey !== undefined) {
      identity = encodeHex(parseIdentity(body.identity_pubkey, "identity_pubkey"));
      const sig = decodeSignature(body.identity_signature, "identity_signature");
      const text = Buffer.from(revocationText(identity, access), "utf8");
      if (!(await verifyAsync(Buffer.from(identity, "hex"), text, sig))) {
        throw unauthorized("identity_signature does not verify", "bad_identity_signature");
      }
    } else {
      identity = requireIdentity(caller);
    }
    const record = await this.#store.getAccessKey(access);
    // Another identity's key looks exactly like an unknown one: no probing of who owns what.
    if (!record || record.identity !== identity) {
      throw new ContractError("NOT_FOUND", "Cannot revoke access key: not a key of this identity", {
        reason: "unknown_access_key",
      });
    }
    const revoked = (await this.#store.revokeAccessKey(access, this.#now())) ?? record;
    for (const listener of this.#revokeListeners) listener(access);
    return { access_key: access, revoked_at: revoked.revokedAt ?? this.#now() };
  }

  /** True while `accessKey` is registered and unrevoked (sessions re-check it: another instance may have revoked it). */
  async isActive(accessKey: string): Promise<boolean> {
    const record = await this.#store.getAccessKey(accessKey);
    return record !== null && record.revokedAt === null;
  }

  /** Calls `listener(accessKey)` after each revocation; returns the unsubscribe function. */
  onRevoke(listener: (accessKey: string) => void): () => void {
    this.#revokeListeners.add(listener);
    return () => this.#revokeListeners.delete(listener);
  }
}

function checkReusable(record: AccessKeyRecord, identity: string): void {
  if (record.revokedAt !== null) {
    throw new ContractError("CONFLICT", "Cannot register access key: it was revoked and can never be used again", {
      reason: "access_key_revoked",
    });
  }
  if (record.identity !== identity) {
    throw new ContractError("CONFLICT", "Cannot register access key: it belongs to another identity", {
      reason: "access_key_taken",
    });
  }
}

function requireIdentity(caller: Caller): string {
  if (caller.identity === null) throw unauthorized("this request must be signed with an access key", "unauthenticated");
  return caller.identity;
}

function unauthorized(message: string, reason: string): ContractError {
  return new ContractError("UNAUTHORIZED", `Cannot authenticate: ${message}`, { reason });
}
