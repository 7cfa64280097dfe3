/**
 * Request authentication (docs/api.md): verifies the X-Hub-* headers of one request and
 * resolves the caller. Cheap checks (presence, shapes, time window) run before the store
 * lookup, and the signature before the nonce is spent, so forged requests cannot burn nonces.
 */

import { ANONYMOUS, type Caller, type PendingNonce } from "../api/Caller.js";
import { ContractError } from "../contract/ContractError.js";
import { decodeHex, isLowerHex } from "../contract/hex.js";
import { verifyAsync } from "../contract/keys.js";
import { replayedNonce } from "../store/replayedNonce.js";
import type { AccessKeyRecord, AuthStore } from "./AuthStore.js";
import { AUTH_HEADERS, requestSigningText, sha256HexOf, socketAuthText } from "./signingText.js";

/** The parts of an HTTP request that are signed. */
export interface SignedRequest {
  method: string;
  /** Path and query exactly as sent (fastify's `request.url`). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** Raw body bytes as received (empty for none). */
  body: Uint8Array;
}

export interface AuthenticatorOptions {
  store: AuthStore;
  /** Accepted clock difference either way, in ms (default 300 000). */
  windowMs?: number;
  /** Current time in ms (tests pin it). */
  now?: () => number;
}

export interface AuthenticateOptions {
  /** Leave the nonce unspent on the returned caller (the request's append stores it). */
  deferNonce?: boolean;
}

const NONCE = /^[0-9a-f]{16,128}$/;
const TIMESTAMP = /^[0-9]{1,16}$/;

/** Verifies signed requests and WebSocket challenges against the registered access keys. */
export class Authenticator {
  readonly #store: AuthStore;
  readonly #windowMs: number;
  readonly #now: () => number;

  constructor(options: AuthenticatorOptions) {
    this.#store = options.store;
    this.#windowMs = options.windowMs ?? 300_000;
    this.#now = options.now ?? Date.now;
  }

  /** True when the request carries any of the auth headers (then they must all verify). */
  static hasCredentials(headers: SignedRequest["headers"]): boolean {
    return Object.values(AUTH_HEADERS).some((h) => headers[h] !== undefined);
  }

  /** The caller of a request: anonymous without auth headers, else verified or 401. */
  async identify(req: SignedRequest, options: AuthenticateOptions = {}): Promise<Caller> {
    return Authenticator.hasCredentials(req.headers) ? this.authenticate(req, options) : ANONYMOUS;
  }

  /**
   * Verifies the request's signature headers; throws UNAUTHORIZED naming what failed. The
   * nonce is spent here, unless `deferNonce`: then the caller carries it unspent, for the
   * request's append to store in its own transaction (or `spendNonce` after the request).
   */
  async authenticate(req: SignedRequest, options: AuthenticateOptions = {}): Promise<Caller> {
    const key = header(req, AUTH_HEADERS.key);
    const timestamp = header(req, AUTH_HEADERS.timestamp);
    const nonce = header(req, AUTH_HEADERS.nonce);
    const signature = header(req, AUTH_HEADERS.signature);
    const missing = Object.entries({ key, timestamp, nonce, signature })
      .filter(([, v]) => v === undefined)
      .map(([k]) => `X-Hub-${k[0]!.toUpperCase()}${k.slice(1)}`);
    if (missing.length > 0) {
      throw unauthorized(`Missing authentication header ${missing.join(", ")}`, "missing_headers", { missing });
    }
    if (!isLowerHex(key, 32)) throw unauthorized("X-Hub-Key must be 64 lower-case hex characters", "bad_key");
    if (!TIMESTAMP.test(timestamp!)) throw unauthorized("X-Hub-Timestamp must be unix milliseconds", "bad_timestamp");
    if (!NONCE.test(nonce!)) throw unauthorized("X-Hub-Nonce must be 16 to 128 lower-case hex characters", "bad_nonce");
    if (!isLowerHex(signature, 64)) {
      throw unauthorized("X-Hub-Signature must be 128 lower-case hex characters", "bad_signature_format");
    }
    const ts = Number(timestamp);
    const skew = ts - this.#now();
    if (Math.abs(skew) > this.#windowMs) {
      throw unauthorized(`X-Hub-Timestamp is ${Math.round(skew / 1000)} s from the hub's clock`, "expired_timestamp", {
        window_ms: this.#windowMs,
      });
    }
    const record = await this.#activeKey(key);
    const text = requestSigningText(req.method, req.url, timestamp!, nonce!, sha256HexOf(req.body));
    const ok = await verifyAsync(decodeHex(key), Buffer.from(text, "utf8"), decodeHex(signature));
    if (!ok) throw unauthorized("X-Hub-Signature does not verify for this request", "bad_signature");
    const pending: PendingNonce = {
      accessKey: key,
      nonce: nonce!,
      expiresAt: Math.ceil((ts + this.#windowMs) / 1000),
      spent: false,
    };
    if (options.deferNonce) return { identity: record.identity, accessKey: record.accessKey, nonce: pending };
    await this.spendNonce(pending);
    return { identity: record.identity, accessKey: record.accessKey };
  }

  /** Records a deferred nonce on its own (a no-op once spent); UNAUTHORIZED `replayed_nonce` when it was used. */
  async spendNonce(pending: PendingNonce): Promise<void> {
    if (pending.spent) return;
    if (!(await this.#store.useNonce(pending.accessKey, pending.nonce, pending.expiresAt))) throw replayedNonce();
    pending.spent = true;
  }

  /** Verifies a WebSocket `authenticate {key, signature}` over the connection's challenge. */
  async authenticateSocket(challenge: string, key: unknown, signature: unknown): Promise<Caller> {
    if (!isLowerHex(key, 32)) throw unauthorized("key must be 64 lower-case hex characters", "bad_key");
    if (!isLowerHex(signature, 64)) {
      throw unauthorized("signature must be 128 lower-case hex characters", "bad_signature_format");
    }
    const record = await this.#activeKey(key);
    const ok = await verifyAsync(decodeHex(key), Buffer.from(socketAuthText(challenge), "utf8"), decodeHex(signature));
    if (!ok) throw unauthorized("signature does not verify for this connection's challenge", "bad_signature");
    return { identity: record.identity, accessKey: record.accessKey };
  }

  /** The record of a registered, unrevoked key (same error for unknown and revoked: no probing). */
  async #activeKey(key: string): Promise<AccessKeyRecord> {
    const record = await this.#store.getAccessKey(key);
    if (!record || record.revokedAt !== null)
      throw unauthorized("Access key is not registered or was revoked", "unknown_key");
    return record;
  }
}

function header(req: SignedRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function unauthorized(message: string, reason: string, extra: Record<string, unknown> = {}): ContractError {
  return new ContractError("UNAUTHORIZED", `Cannot authenticate request: ${message}`, { reason, ...extra });
}
