import { randomBytes } from "node:crypto";
import type { RegisterBody, RevokeBody } from "../api/schemas.js";
import { encodeHex } from "../contract/hex.js";
import { publicKeyFromSeed, sign } from "../contract/keys.js";
import {
  AUTH_HEADERS,
  registrationText,
  requestSigningText,
  revocationText,
  sha256HexOf,
  socketAuthText,
} from "./signingText.js";

/** What `signRequest` signs; `timestamp` (ms) and `nonce` default to now and 16 random bytes. */
export interface RequestToSign {
  method: string;
  /** Path and query exactly as they will be sent. */
  url: string;
  body?: Uint8Array | string;
  timestamp?: number;
  nonce?: string;
}

/** The four X-Hub-* headers for a request signed by an access key seed (32 bytes). */
export function signRequest(seed: Uint8Array, req: RequestToSign): Record<string, string> {
  const timestamp = String(req.timestamp ?? Date.now());
  const nonce = req.nonce ?? randomBytes(16).toString("hex");
  const text = requestSigningText(req.method, req.url, timestamp, nonce, sha256HexOf(req.body ?? ""));
  return {
    [AUTH_HEADERS.key]: encodeHex(publicKeyFromSeed(seed)),
    [AUTH_HEADERS.timestamp]: timestamp,
    [AUTH_HEADERS.nonce]: nonce,
    [AUTH_HEADERS.signature]: encodeHex(sign(seed, Buffer.from(text, "utf8"))),
  };
}

/** The `POST /register` body for an identity seed and an access seed. */
export function registrationBody(identitySeed: Uint8Array, accessSeed: Uint8Array): RegisterBody {
  const identity = encodeHex(publicKeyFromSeed(identitySeed));
  const access = encodeHex(publicKeyFromSeed(accessSeed));
  const text = Buffer.from(registrationText(identity, access), "utf8");
  return {
    identity_pubkey: identity,
    access_pubkey: access,
    identity_signature: encodeHex(sign(identitySeed, text)),
    access_signature: encodeHex(sign(accessSeed, text)),
  };
}

/** The `POST /access/revoke` body that revokes `accessKey` (hex) with the identity key alone. */
export function revocationBody(identitySeed: Uint8Array, accessKey: string): RevokeBody {
  const identity = encodeHex(publicKeyFromSeed(identitySeed));
  const text = Buffer.from(revocationText(identity, accessKey), "utf8");
  return { access_key: accessKey, identity_pubkey: identity, identity_signature: encodeHex(sign(identitySeed, text)) };
}

/** The WebSocket `authenticate` params answering a hello challenge. */
export function socketAuthParams(accessSeed: Uint8Array, challenge: string): { key: string; signature: string } {
  return {
    key: encodeHex(publicKeyFromSeed(accessSeed)),
    signature: encodeHex(sign(accessSeed, Buffer.from(socketAuthText(challenge), "utf8"))),
  };
}
