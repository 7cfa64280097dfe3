/**
 * Crypto and canonical-bytes costs per commit: what push ingest pays before storage.
 * The hub needs async verification at ≥ 0.8× the raw synchronous verify rate (it runs on the
 * libuv threadpool, so with several in flight it should exceed it on 2+ cores).
 */
import { createHash, createPublicKey, verify as cryptoVerify } from "node:crypto";
import { buildWireCommit } from "../src/contract/buildWireCommit.js";
import type { Operation } from "../src/contract/Commit.js";
import { canonicalize } from "../src/contract/canonicalJson.js";
import { commitCanonicalText, commitPayload, computeCommitHash } from "../src/contract/commitHash.js";
import {
  ED25519_SPKI_PREFIX,
  generateKeyPair,
  PublicKeyCache,
  privateKeyFromSeed,
  sign,
  verify,
  verifyAsync,
} from "../src/contract/keys.js";
import { validateCommitShape } from "../src/contract/validateCommitShape.js";
import { opsPerSecond, type Reporter } from "./Reporter.js";

const BENCH = "crypto";

/** A typical escrow step: a post, an action label, a buyer signature. */
function typicalCommit() {
  const buyer = generateKeyPair();
  const data: Operation[] = [
    { method: "post", path: "/terms/delivery_note.text", value: "Shipped with tracking number 1Z999AA10123456784" },
    { method: "action", value: "DELIVER" },
  ];
  return {
    buyer,
    data,
    commit: buildWireCommit("c_0123456789abcdef01234567", "ab".repeat(32), data, [
      { key: buyer.seed, as: "/users/seller.id" },
    ]),
  };
}

/** Runs `total` async operations keeping `inFlight` pending; returns operations per second. */
async function asyncRate(inFlight: number, total: number, op: () => Promise<unknown>): Promise<number> {
  let started = 0;
  const start = performance.now();
  const lane = async () => {
    while (started < total) {
      started++;
      await op();
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return (total / (performance.now() - start)) * 1000;
}

export default async function cryptoBench(r: Reporter): Promise<void> {
  const { buyer, data, commit } = typicalCommit();
  const hash = Buffer.from(commit.hash, "hex");
  const sig = Buffer.from(Object.values(commit.head.signatures)[0]!, "hex");
  const privateKey = privateKeyFromSeed(buyer.seed);
  const cache = new PublicKeyCache();
  const keyObject = cache.get(buyer.publicKey);

  // Warm up JIT and OpenSSL before measuring.
  for (let i = 0; i < 500; i++) verify(buyer.publicKey, hash, sig);

  const rawVerify = opsPerSecond(() => cryptoVerify(null, hash, keyObject, sig), 1000);
  r.add({ bench: BENCH, case: "ed25519 verify, sync, cached KeyObject", value: rawVerify, unit: "ops/s" });
  r.add({
    bench: BENCH,
    case: "ed25519 verify, sync, via verify() (cache lookup)",
    value: opsPerSecond(() => verify(buyer.publicKey, hash, sig), 1000),
    unit: "ops/s",
  });
  r.add({
    bench: BENCH,
    case: "ed25519 verify, sync, importing the key each call",
    value: opsPerSecond(() => {
      const k = createPublicKey({
        key: Buffer.concat([ED25519_SPKI_PREFIX, buyer.publicKey]),
        format: "der",
        type: "spki",
      });
      cryptoVerify(null, hash, k, sig);
    }, 1000),
    unit: "ops/s",
  });
  for (const inFlight of [1, 16, 64]) {
    const rate = await asyncRate(inFlight, 8000, () => verifyAsync(buyer.publicKey, hash, sig));
    r.add({ bench: BENCH, case: `ed25519 verifyAsync, ${inFlight} in flight`, value: rate, unit: "ops/s" });
    if (inFlight >= 16) {
      r.add({
        bench: BENCH,
        case: `verifyAsync ${inFlight} in flight / sync verify`,
        value: rate / rawVerify,
        unit: "ratio",
        note: "target ≥ 0.8",
      });
    }
  }
  r.add({
    bench: BENCH,
    case: "ed25519 sign, KeyObject",
    value: opsPerSecond(() => sign(privateKey, hash), 1000),
    unit: "ops/s",
  });
  r.add({
    bench: BENCH,
    case: "ed25519 sign, raw seed",
    value: opsPerSecond(() => sign(buyer.seed, hash), 1000),
    unit: "ops/s",
  });

  const text = commitCanonicalText("c_0123456789abcdef01234567", commit.parent, data);
  r.add({
    bench: BENCH,
    case: `sha256 of a commit's canonical text (${Buffer.byteLength(text)} B)`,
    value: opsPerSecond(() => createHash("sha256").update(text).digest("hex")),
    unit: "ops/s",
  });
  const payload = commitPayload("c_0123456789abcdef01234567", commit.parent, data);
  r.add({
    bench: BENCH,
    case: "JCS of a typical commit",
    value: opsPerSecond(() => canonicalize(payload)),
    unit: "ops/s",
  });
  r.add({
    bench: BENCH,
    case: "commit hash (JCS + sha256)",
    value: opsPerSecond(() => computeCommitHash("c_0123456789abcdef01234567", commit.parent, data)),
    unit: "ops/s",
  });
  const wire = JSON.parse(JSON.stringify(commit)) as unknown;
  r.add({
    bench: BENCH,
    case: "validateCommitShape of a typical commit (incl. hash)",
    value: opsPerSecond(() => validateCommitShape(wire, { contractId: "c_0123456789abcdef01234567" })),
    unit: "ops/s",
  });
}
