import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { generateKeyPair, publicKeyFromSeed } from "./keys.js";
import { isWeakPublicKey } from "./weakPublicKey.js";

/** The small-order encodings of libsodium's blocklist (ed25519_ref10 `has_small_order`). */
const SMALL_ORDER = [
  "0000000000000000000000000000000000000000000000000000000000000000", // order 4
  "0100000000000000000000000000000000000000000000000000000000000000", // identity
  "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // order 2
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05", // order 8
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85", // order 8
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", // order 8
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa", // order 8
  "0000000000000000000000000000000000000000000000000000000000000080", // order 4, other x sign
];

test("small-order points are weak", () => {
  for (const hex of SMALL_ORDER) assert.equal(isWeakPublicKey(Buffer.from(hex, "hex")), true, hex);
});

test("non-canonical encodings (y ≥ p) and the negative zero x are weak", () => {
  for (const hex of [
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // y = p
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // y = p + 1
    "0100000000000000000000000000000000000000000000000000000000000080", // identity with x sign set
  ]) {
    assert.equal(isWeakPublicKey(Buffer.from(hex, "hex")), true, hex);
  }
  assert.equal(isWeakPublicKey(new Uint8Array(31)), true);
});

test("real public keys are not weak; RFC 8032 test 1 included", () => {
  assert.equal(
    isWeakPublicKey(Buffer.from("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "hex")),
    false,
  );
  for (let i = 0; i < 20; i++) assert.equal(isWeakPublicKey(generateKeyPair().publicKey), false);
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (seed) => !isWeakPublicKey(publicKeyFromSeed(seed))),
    { numRuns: 50 },
  );
});

test("most random 32-byte strings are not curve points, and those are weak", () => {
  let weak = 0;
  for (let i = 0; i < 200; i++)
    if (isWeakPublicKey(Buffer.from(Array.from({ length: 32 }, (_, j) => (i * 31 + j * 7) & 0xff)))) weak++;
  // About half of all y values have no x; none of these is a real key.
  assert.ok(weak > 50 && weak < 150, `weak ${weak}`);
});
