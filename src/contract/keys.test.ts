import assert from "node:assert/strict";
import { createPublicKey } from "node:crypto";
import { test } from "node:test";
import { assertContractError, assertContractErrorAsync } from "./assertContractError.js";
import {
  generateKeyPair,
  PublicKeyCache,
  privateKeyFromSeed,
  publicKeyCache,
  publicKeyFromSeed,
  rawPublicKey,
  sign,
  verify,
  verifyAsync,
} from "./keys.js";

const hex = (s: string) => Buffer.from(s, "hex");

/** RFC 8032 §7.1 TEST 1, 2, 3: secret seed, public key, message, signature. */
const RFC8032 = [
  {
    seed: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
    pub: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    msg: "",
    sig: "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
  },
  {
    seed: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
    pub: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
    msg: "72",
    sig: "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
  },
  {
    seed: "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
    pub: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
    msg: "af82",
    sig: "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
  },
];

for (const [i, v] of RFC8032.entries()) {
  test(`RFC 8032 test ${i + 1}: public key, signature, verification`, async () => {
    assert.equal(publicKeyFromSeed(hex(v.seed)).toString("hex"), v.pub);
    assert.equal(sign(hex(v.seed), hex(v.msg)).toString("hex"), v.sig);
    assert.equal(sign(privateKeyFromSeed(hex(v.seed)), hex(v.msg)).toString("hex"), v.sig);
    assert.equal(verify(hex(v.pub), hex(v.msg), hex(v.sig)), true);
    assert.equal(await verifyAsync(hex(v.pub), hex(v.msg), hex(v.sig)), true);
    const flipped = hex(v.sig);
    flipped[5]! ^= 1;
    assert.equal(verify(hex(v.pub), hex(v.msg), flipped), false);
    assert.equal(await verifyAsync(hex(v.pub), hex(v.msg), flipped), false);
    assert.equal(verify(hex(v.pub), Buffer.concat([hex(v.msg), Buffer.from([0])]), hex(v.sig)), false);
  });
}

test("generateKeyPair yields a consistent raw pair, different every time", () => {
  const a = generateKeyPair();
  const b = generateKeyPair();
  assert.equal(a.seed.length, 32);
  assert.equal(a.publicKey.length, 32);
  assert.deepEqual(publicKeyFromSeed(a.seed), a.publicKey);
  assert.notDeepEqual(a.seed, b.seed);
  const msg = Buffer.from("hello");
  assert.equal(verify(a.publicKey, msg, sign(a.seed, msg)), true);
  assert.equal(verify(b.publicKey, msg, sign(a.seed, msg)), false);
  assert.deepEqual(rawPublicKey(createPublicKey(privateKeyFromSeed(a.seed))), a.publicKey);
});

test("wrong lengths are caller errors, not false", async () => {
  const { seed, publicKey } = generateKeyPair();
  const sig = sign(seed, Buffer.from("m"));
  assert.equal(
    assertContractError(() => verify(publicKey.subarray(0, 31), Buffer.from("m"), sig), "INVALID_REQUEST").actual,
    31,
  );
  assertContractError(
    () => verify(publicKey, Buffer.from("m"), sig.subarray(1)),
    "INVALID_REQUEST",
    "signature_wrong_length",
  );
  assertContractError(() => sign(seed.subarray(1), Buffer.from("m")), "INVALID_REQUEST", "seed_wrong_length");
  await assertContractErrorAsync(() => verifyAsync(publicKey, Buffer.from("m"), sig.subarray(1)), "INVALID_REQUEST");
});

test("weak or invalid public keys never verify a signature: VALIDATION_FAILED weak_key", async () => {
  const { seed } = generateKeyPair();
  const msg = Buffer.from("m");
  const sig = sign(seed, msg);
  // The identity point with the "universal" signature R = identity, S = 0 verifies in OpenSSL.
  const universal = hex(`01${"00".repeat(63)}`);
  for (const k of ["00".repeat(32), `01${"00".repeat(31)}`, "ff".repeat(32)]) {
    assertContractError(() => verify(hex(k), msg, sig), "VALIDATION_FAILED", "weak_key");
    assertContractError(() => verify(hex(k), msg, universal), "VALIDATION_FAILED", "weak_key");
    assertContractError(() => verify(`ed25519:${k}`, msg, universal), "VALIDATION_FAILED", "weak_key");
    await assertContractErrorAsync(() => verifyAsync(hex(k), msg, universal), "VALIDATION_FAILED", "weak_key");
  }
});

test("the key cache is a bounded LRU", () => {
  const cache = new PublicKeyCache(2);
  const [a, b, c] = [generateKeyPair(), generateKeyPair(), generateKeyPair()].map((k) => k.publicKey) as [
    Buffer,
    Buffer,
    Buffer,
  ];
  const ka = cache.get(a);
  cache.get(b);
  assert.equal(cache.get(a), ka); // a hit, and a becomes the most recent
  cache.get(c); // evicts b, the least recent
  assert.equal(cache.size, 2);
  assert.equal(cache.get(a), ka);
  assert.deepEqual(rawPublicKey(cache.get(b)), b);
  assert.equal(cache.size, 2);
  // The shared cache keys by content: bytes, hex and identity text share one entry.
  const k = publicKeyCache.get(Buffer.from(a));
  assert.equal(publicKeyCache.get(new Uint8Array(a)), k);
  assert.equal(publicKeyCache.get(a.toString("hex")), k);
  assert.equal(publicKeyCache.get(`ed25519:${a.toString("hex")}`), k);
});

test("text keys are decoded strictly", () => {
  const { seed, publicKey } = generateKeyPair();
  const msg = Buffer.from("m");
  assert.equal(verify(publicKey.toString("hex"), msg, sign(seed, msg)), true);
  assertContractError(
    () => verify(publicKey.toString("hex").toUpperCase(), msg, sign(seed, msg)),
    "INVALID_REQUEST",
    "hex_upper_case",
  );
  assertContractError(
    () => verify(publicKey.toString("hex").slice(2), msg, sign(seed, msg)),
    "INVALID_REQUEST",
    "hex_wrong_length",
  );
});

test("verifyAsync runs many verifications concurrently with correct results", async () => {
  const { seed, publicKey } = generateKeyPair();
  const msgs = Array.from({ length: 64 }, (_, i) => Buffer.from(`m${i}`));
  const sigs = msgs.map((m) => sign(seed, m));
  const results = await Promise.all(msgs.map((m, i) => verifyAsync(publicKey, m, sigs[(i + (i % 2)) % 64]!)));
  assert.deepEqual(
    results,
    msgs.map((_, i) => i % 2 === 0),
  );
});
