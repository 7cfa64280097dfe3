/**
 * Weak-key vectors derived from the curve math (test/support/edwards25519.ts), covering what
 * the public Wycheproof ed25519 vectors (test/wycheproof-ed25519.test.ts) do not: every encoding of
 * the eight small-order points (canonical, non-canonical y ≥ p, and the sign-bit variants),
 * every non-canonical encoding, off-curve encodings, mixed-order keys, non-canonical S and
 * non-canonical R. The hub's one check (assertStrongKey) and its verification must refuse
 * what they should and nothing else; the raw OpenSSL verify shows the attack is real.
 */
import assert from "node:assert/strict";
import { createPublicKey, verify as cryptoVerify } from "node:crypto";
import { test } from "node:test";
import { assertContractError } from "../src/contract/assertContractError.js";
import { ED25519_SPKI_PREFIX, generateKeyPair, sign, verify } from "../src/contract/keys.js";
import { assertStrongKey, isWeakPublicKey } from "../src/contract/weakPublicKey.js";
import {
  add,
  BASE,
  decodeLenient,
  encode,
  encodeRaw,
  equals,
  IDENTITY,
  L,
  multiply,
  P,
  smallOrderEncodings,
  torsionPoints,
} from "./support/edwards25519.js";

const MESSAGE = Buffer.from("contract-hub weak key vectors");
/** R = the identity point, S = 0: verifies under cofactorless verification for the identity key. */
const UNIVERSAL = Buffer.concat([encodeRaw(1n, 0), Buffer.alloc(32)]);

const rawOpenSslVerify = (key: Buffer, sig: Buffer) =>
  cryptoVerify(
    null,
    MESSAGE,
    createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, key]), format: "der", type: "spki" }),
    sig,
  );

test("the curve math is sound: B has order L, the torsion points have orders dividing 8", () => {
  assert.ok(equals(multiply(BASE, L), IDENTITY));
  assert.equal(encode(BASE).toString("hex"), "5866666666666666666666666666666666666666666666666666666666666666");
  const torsion = torsionPoints();
  assert.equal(torsion.length, 8);
  for (const t of torsion) assert.ok(equals(multiply(t, 8n), IDENTITY));
  assert.equal(new Set(torsion.map((t) => encode(t).toString("hex"))).size, 8);
});

test("every encoding of a small-order point is weak: refused at entry and by verification", () => {
  const encodings = smallOrderEncodings();
  // 8 canonical, plus x = 0 with the sign bit (identity, order 2, the order-4 pair via y = p)
  // and y + p for y = 0 and 1: 14 strings in all.
  assert.equal(encodings.length, 14, encodings.join("\n"));
  for (const hex of encodings) {
    const key = Buffer.from(hex, "hex");
    assert.equal(isWeakPublicKey(key), true, hex);
    assertContractError(() => assertStrongKey(key, "identity"), "INVALID_REQUEST", "weak_key");
    assertContractError(() => verify(key, MESSAGE, UNIVERSAL), "VALIDATION_FAILED", "weak_key");
  }
});

// The OpenSSL that Node 20 and 22 bundle accepts it; Node 24's refuses the identity point
// itself. Either way the hub's verification must refuse it, naming weak_key: the test
// shows the attack where the runtime has it and the refusal everywhere.
test("the attack: OpenSSL of Node 20 and 22 accepts the universal signature for the identity key; verify refuses it", (t) => {
  const identity = encodeRaw(1n, 0);
  const nodeMajor = Number(process.versions.node.split(".")[0]);
  if (nodeMajor < 24) assert.equal(rawOpenSslVerify(identity, UNIVERSAL), true);
  else t.diagnostic(`OpenSSL ${process.versions.openssl} accepts it: ${rawOpenSslVerify(identity, UNIVERSAL)}`);
  assertContractError(() => verify(identity, MESSAGE, UNIVERSAL), "VALIDATION_FAILED", "weak_key");
});

test("every non-canonical encoding (y ≥ p, either sign) and x = 0 with the sign bit set is weak", () => {
  let n = 0;
  for (let y = P; y < 2n ** 255n; y++) {
    for (const sign of [0, 1]) {
      assert.equal(isWeakPublicKey(encodeRaw(y, sign)), true, `y = p + ${y - P}, sign ${sign}`);
      n++;
    }
  }
  assert.equal(n, 38);
  assert.equal(isWeakPublicKey(encodeRaw(1n, 1)), true);
  assert.equal(isWeakPublicKey(encodeRaw(P - 1n, 1)), true);
});

test("encodings of no curve point are weak", () => {
  let offCurve = 0;
  for (let y = 2n; offCurve < 20; y++) {
    const bytes = encodeRaw(y, 0);
    if (decodeLenient(bytes) !== null) continue;
    offCurve++;
    assert.equal(isWeakPublicKey(bytes), true, `y = ${y}`);
  }
});

test("mixed-order keys (a real key plus a torsion point) are not small-order, and forgeries for them fail", () => {
  const torsion = torsionPoints();
  for (let i = 0; i < 4; i++) {
    const real = decodeLenient(generateKeyPair().publicKey)!;
    for (const t of torsion.slice(1)) {
      const mixed = encode(add(real, t));
      assert.equal(isWeakPublicKey(mixed), false);
      assert.equal(verify(mixed, MESSAGE, UNIVERSAL), false);
      // R = a torsion point, S = 0: would need k·A to be small order, which it is not.
      for (const r of torsion)
        assert.equal(verify(mixed, MESSAGE, Buffer.concat([encode(r), Buffer.alloc(32)])), false);
    }
  }
});

test("non-canonical S (S + L, S + 2L) and non-canonical R never verify", () => {
  const { seed, publicKey } = generateKeyPair();
  const sig = sign(seed, MESSAGE);
  assert.equal(verify(publicKey, MESSAGE, sig), true);
  const s = BigInt(`0x${Buffer.from(sig.subarray(32)).reverse().toString("hex")}`);
  for (const k of [1n, 2n, 3n]) {
    const bigS = encodeRaw(s + k * L, 0);
    // S + kL stays below 2^255 here, so the top bit is the value's own.
    assert.equal(verify(publicKey, MESSAGE, Buffer.concat([sig.subarray(0, 32), bigS])), false, `S + ${k}L`);
  }
  for (let y = P; y < P + 3n; y++) {
    const badR = Buffer.concat([encodeRaw(y, 0), sig.subarray(32)]);
    assert.equal(verify(publicKey, MESSAGE, badR), false, `R with y = p + ${y - P}`);
  }
  // The identity spelled non-canonically (y = p + 1) as R with S = 0.
  assert.equal(verify(publicKey, MESSAGE, Buffer.concat([encodeRaw(P + 1n, 0), Buffer.alloc(32)])), false);
});
