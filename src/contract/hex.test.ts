import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { assertContractError } from "./assertContractError.js";
import {
  decodeHash,
  decodeHex,
  decodeSignature,
  encodeHex,
  formatIdentity,
  isLowerHex,
  normalizeIdentity,
  parseIdentity,
} from "./hex.js";

const rejects = assertContractError;

const KEY = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";

test("decodeHex round-trips any bytes", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
      assert.deepEqual(new Uint8Array(decodeHex(encodeHex(bytes))), bytes);
    }),
  );
});

test("decodeHex names each malformation precisely", () => {
  rejects(() => decodeHex(12), "INVALID_REQUEST", "hex_not_string");
  rejects(() => decodeHex("abc"), "INVALID_REQUEST", "hex_odd_length");
  assert.equal(rejects(() => decodeHex("abzz"), "INVALID_REQUEST", "hex_bad_char").position, 2);
  assert.equal(rejects(() => decodeHex("aB"), "INVALID_REQUEST", "hex_upper_case").position, 1);
  rejects(() => decodeHex(" ab"), "INVALID_REQUEST", "hex_bad_char");
  rejects(() => decodeHex("0x00"), "INVALID_REQUEST", "hex_bad_char");
  const d = rejects(() => decodeHex("abcd", { bytes: 3, field: "head.parent" }), "INVALID_REQUEST", "hex_wrong_length");
  assert.deepEqual([d.field, d.expected, d.actual], ["head.parent", 3, 2]);
  rejects(() => decodeHex("zz", { code: "VALIDATION_FAILED" }), "VALIDATION_FAILED", "hex_bad_char");
});

test("Buffer's lenient decoding would have accepted what decodeHex refuses", () => {
  // Node's own decoder stops at the first bad pair: the reason this module exists.
  assert.equal(Buffer.from("abzz", "hex").length, 1);
});

test("hash and signature decoders fix the length", () => {
  assert.equal(decodeHash("00".repeat(32)).length, 32);
  rejects(() => decodeHash("00".repeat(31)), "INVALID_REQUEST", "hex_wrong_length");
  assert.equal(decodeSignature("ab".repeat(64)).length, 64);
  rejects(() => decodeSignature("ab".repeat(63)), "INVALID_REQUEST", "hex_wrong_length");
});

test("isLowerHex", () => {
  assert.equal(isLowerHex(KEY, 32), true);
  assert.equal(isLowerHex(KEY.toUpperCase(), 32), false);
  assert.equal(isLowerHex(KEY, 31), false);
  assert.equal(isLowerHex("abc"), false);
  assert.equal(isLowerHex(null), false);
});

test("parseIdentity accepts both spellings and nothing else", () => {
  assert.equal(encodeHex(parseIdentity(KEY)), KEY);
  assert.equal(encodeHex(parseIdentity(`ed25519:${KEY}`)), KEY);
  rejects(() => parseIdentity(`ed25519:${KEY.toUpperCase()}`), "INVALID_REQUEST", "hex_upper_case");
  rejects(() => parseIdentity(`ED25519:${KEY}`), "INVALID_REQUEST", "identity_key_type");
  rejects(() => parseIdentity(`secp256k1:${KEY}`), "INVALID_REQUEST", "identity_key_type");
  rejects(() => parseIdentity(`ed25519:${KEY}00`), "INVALID_REQUEST", "hex_wrong_length");
  rejects(() => parseIdentity(undefined), "INVALID_REQUEST", "identity_not_string");
  rejects(() => parseIdentity(KEY.slice(2), "owner", "VALIDATION_FAILED"), "VALIDATION_FAILED", "hex_wrong_length");
});

test("formatIdentity writes ed25519:<lower hex> and normalizeIdentity is idempotent", () => {
  assert.equal(formatIdentity(Buffer.from(KEY, "hex")), `ed25519:${KEY}`);
  assert.equal(normalizeIdentity(KEY), `ed25519:${KEY}`);
  assert.equal(normalizeIdentity(normalizeIdentity(KEY)), `ed25519:${KEY}`);
  rejects(() => formatIdentity(new Uint8Array(31)), "INVALID_REQUEST", "identity_wrong_length");
});
