import { ContractError } from "./ContractError.js";
import type { ErrorCode } from "./errorCodes.js";
import { assertStrongKey } from "./weakPublicKey.js";

/** Prefix of an identity written as text (docs/protocol.md). */
export const IDENTITY_PREFIX = "ed25519:";

const LOWER_HEX = /^[0-9a-f]*$/;

/** Options of the strict decoders. */
export interface HexOptions {
  /** Exact decoded length in bytes; any other length is an error. */
  bytes?: number;
  /** What the value is, for the message and `details.field` (e.g. "head.parent"). */
  field?: string;
  /** Error code to throw; INVALID_REQUEST (a malformed request field) unless told. */
  code?: ErrorCode;
}

/** True when `value` is lower-case hex of exactly `bytes` bytes (any even length when omitted). */
export function isLowerHex(value: unknown, bytes?: number): value is string {
  if (typeof value !== "string" || value.length % 2 !== 0) return false;
  if (bytes !== undefined && value.length !== bytes * 2) return false;
  return LOWER_HEX.test(value);
}

/**
 * Decodes lower-case hex, never coercing: a non-string, an odd length, a character outside
 * `0-9a-f` (upper case named separately) or a wrong length throws with a precise reason.
 */
export function decodeHex(value: unknown, options: HexOptions = {}): Buffer {
  const field = options.field ?? "hex value";
  const code = options.code ?? "INVALID_REQUEST";
  const fail = (why: string, reason: string, extra: Record<string, unknown> = {}): never => {
    throw new ContractError(code, `Cannot decode ${field}: ${why}`, { reason, field, ...extra });
  };
  if (typeof value !== "string") return fail(`expected a hex string, got ${typeName(value)}`, "hex_not_string");
  if (!LOWER_HEX.test(value)) {
    for (let i = 0; i < value.length; i++) {
      const c = value[i]!;
      if (/[0-9a-f]/.test(c)) continue;
      if (/[A-F]/.test(c)) {
        return fail(`hex must be lower case, found "${c}" at position ${i}`, "hex_upper_case", { position: i });
      }
      return fail(`invalid hex character ${JSON.stringify(c)} at position ${i}`, "hex_bad_char", { position: i });
    }
  }
  if (value.length % 2 !== 0) return fail(`hex has odd length ${value.length}`, "hex_odd_length");
  if (options.bytes !== undefined && value.length !== options.bytes * 2) {
    return fail(
      `expected ${options.bytes} bytes (${options.bytes * 2} hex characters), got ${value.length / 2}`,
      "hex_wrong_length",
      {
        expected: options.bytes,
        actual: value.length / 2,
      },
    );
  }
  return Buffer.from(value, "hex");
}

/** Lower-case hex of `bytes`. */
export function encodeHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** Decodes a 32-byte commit hash (64 lower-case hex characters). */
export function decodeHash(value: unknown, field = "hash", code?: ErrorCode): Buffer {
  return decodeHex(value, { bytes: 32, field, ...(code ? { code } : {}) });
}

/** Decodes a 64-byte ed25519 signature (128 lower-case hex characters). */
export function decodeSignature(value: unknown, field = "signature", code?: ErrorCode): Buffer {
  return decodeHex(value, { bytes: 64, field, ...(code ? { code } : {}) });
}

/**
 * Parses an identity written `ed25519:<hex>` or plain `<hex>` into its 32-byte public key.
 * Every key that enters as text passes here, so a weak key (small order, off the curve, not
 * canonical) is refused here: with `weakCode` (VALIDATION_FAILED for keys inside commits),
 * else `code`, else INVALID_REQUEST.
 */
export function parseIdentity(value: unknown, field = "identity", code?: ErrorCode, weakCode?: ErrorCode): Buffer {
  if (typeof value !== "string") {
    throw new ContractError(
      code ?? "INVALID_REQUEST",
      `Cannot parse ${field}: expected a string, got ${typeName(value)}`,
      {
        reason: "identity_not_string",
        field,
      },
    );
  }
  const hex = value.startsWith(IDENTITY_PREFIX) ? value.slice(IDENTITY_PREFIX.length) : value;
  if (hex.includes(":")) {
    throw new ContractError(
      code ?? "INVALID_REQUEST",
      `Cannot parse ${field}: unknown key type in ${JSON.stringify(value.slice(0, 80))}, expected "ed25519:<hex>" or plain hex`,
      { reason: "identity_key_type", field },
    );
  }
  const key = decodeHex(hex, { bytes: 32, field, ...(code ? { code } : {}) });
  assertStrongKey(key, field, weakCode ?? code);
  return key;
}

/** Writes a 32-byte public key as `ed25519:<lower-case hex>`. */
export function formatIdentity(key: Uint8Array): string {
  if (key.byteLength !== 32) {
    throw new ContractError(
      "INVALID_REQUEST",
      `Cannot format identity: public key must be 32 bytes, got ${key.byteLength}`,
      {
        reason: "identity_wrong_length",
      },
    );
  }
  return IDENTITY_PREFIX + encodeHex(key);
}

/** Normalizes either identity spelling to `ed25519:<hex>` (refusing weak keys as parseIdentity does). */
export function normalizeIdentity(value: unknown, field = "identity", code?: ErrorCode, weakCode?: ErrorCode): string {
  return formatIdentity(parseIdentity(value, field, code, weakCode));
}

/** A short type description for error messages. */
export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return "a string";
  if (typeof value === "number") return "a number";
  if (typeof value === "boolean") return "a boolean";
  return typeof value;
}
