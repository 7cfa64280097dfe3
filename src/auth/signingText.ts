/**
 * The exact texts that keys sign for hub authentication (docs/api.md). Client and
 * server both build them here, so they cannot drift apart.
 */
import { createHash } from "node:crypto";

/** Header names of a signed request (lower case, as node delivers them). */
export const AUTH_HEADERS = Object.freeze({
  key: "x-hub-key",
  timestamp: "x-hub-timestamp",
  nonce: "x-hub-nonce",
  signature: "x-hub-signature",
});

/** Lower-case hex SHA-256 of raw bytes (an absent body hashes as empty bytes). */
export function sha256HexOf(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** `HUB1\n<METHOD>\n<path and query>\n<timestamp>\n<nonce>\n<sha256 hex of body>`. */
export function requestSigningText(
  method: string,
  pathAndQuery: string,
  timestamp: string,
  nonce: string,
  bodySha256: string,
): string {
  return `HUB1\n${method.toUpperCase()}\n${pathAndQuery}\n${timestamp}\n${nonce}\n${bodySha256}`;
}

/** What both keys sign on `POST /register` (plain lower-case hex keys). */
export function registrationText(identityHex: string, accessHex: string): string {
  return `contract-hub:register:${identityHex}:${accessHex}`;
}

/** What the identity key signs to revoke one of its access keys without an access key. */
export function revocationText(identityHex: string, accessHex: string): string {
  return `contract-hub:revoke:${identityHex}:${accessHex}`;
}

/** What an access key signs to authenticate a WebSocket connection. */
export function socketAuthText(challenge: string): string {
  return `HUB1-WS\n${challenge}`;
}
