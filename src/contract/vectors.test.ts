/**
 * Checks the published test vectors (docs/test-vectors.json) against the implementation, and
 * that docs/protocol.md quotes them, so neither the vectors nor the document can drift.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  type AttestationPayload,
  attestationCanonicalText,
  attestationHash,
  verifyAttestation,
} from "./attestation.js";
import type { Attestation, Operation, WireCommit } from "./Commit.js";
import { canonicalize, safeJsonParse } from "./canonicalJson.js";
import { commitCanonicalText, computeCommitHash, signCommit, verifyCommitSignature } from "./commitHash.js";
import { formatIdentity, parseIdentity } from "./hex.js";
import { publicKeyFromSeed } from "./keys.js";
import { validateCommitShape } from "./validateCommitShape.js";

interface Vectors {
  keys: { name: string; seed: string; public_key: string; identity: string }[];
  commits: {
    name: string;
    contract_id: string;
    parent: string | null;
    data: Operation[];
    canonical_json: string;
    hash: string;
    signatures: { signer: string; key: string; signature: string }[];
    wire: WireCommit;
  }[];
  attestations: {
    signer: string;
    payload: AttestationPayload;
    canonical_json: string;
    sha256: string;
    attestation: Attestation;
  }[];
  canonical_json: { input: string; canonical: string }[];
}

const docs = new URL("../../docs/", import.meta.url);
const vectors = JSON.parse(readFileSync(new URL("test-vectors.json", docs), "utf8")) as Vectors;
const doc = readFileSync(new URL("protocol.md", docs), "utf8");
const seedOf = (name: string) => Buffer.from(vectors.keys.find((k) => k.name === name)!.seed, "hex");

test("vector keys: public keys and identities derive from the seeds", () => {
  assert.equal(vectors.keys.length, 3);
  for (const k of vectors.keys) {
    const pub = publicKeyFromSeed(Buffer.from(k.seed, "hex"));
    assert.equal(pub.toString("hex"), k.public_key, k.name);
    assert.equal(formatIdentity(pub), k.identity);
    assert.ok(doc.includes(k.public_key), `docs/protocol.md does not quote ${k.name}'s public key`);
  }
});

test("vector commits: canonical text, hash, signatures, chain and wire form", () => {
  assert.ok(vectors.commits.length >= 3);
  let parent: string | null = null;
  for (const c of vectors.commits) {
    assert.equal(c.parent, parent, `${c.name} is chained to the previous vector`);
    assert.equal(commitCanonicalText(c.contract_id, c.parent, c.data), c.canonical_json, c.name);
    assert.equal(createHash("sha256").update(c.canonical_json, "utf8").digest("hex"), c.hash, c.name);
    assert.equal(computeCommitHash(c.contract_id, c.parent, c.data), c.hash, c.name);
    for (const s of c.signatures) {
      // ed25519 is deterministic: the same seed and hash always give these bytes.
      assert.equal(signCommit(c.hash, seedOf(s.signer)), s.signature, `${c.name} by ${s.signer}`);
      assert.equal(verifyCommitSignature(c.hash, publicKeyFromSeed(seedOf(s.signer)), s.signature), true);
      assert.equal(c.wire.head.signatures[s.key], s.signature);
      assert.ok(doc.includes(s.signature), `docs/protocol.md does not quote the signature of ${c.name}`);
    }
    assert.deepEqual(validateCommitShape(c.wire, { contractId: c.contract_id }), c.wire);
    assert.ok(doc.includes(c.hash), `docs/protocol.md does not quote the hash of ${c.name}`);
    assert.ok(doc.includes(c.canonical_json), `docs/protocol.md does not quote the canonical text of ${c.name}`);
    parent = c.hash;
  }
});

test("vector attestations: canonical text, digest and signature", () => {
  for (const a of vectors.attestations) {
    assert.equal(attestationCanonicalText(a.payload), a.canonical_json);
    assert.equal(attestationHash(a.payload).toString("hex"), a.sha256);
    assert.equal(verifyAttestation(a.attestation, a.payload.contract_id, a.payload.parent), true);
    assert.deepEqual(parseIdentity(a.attestation.oracle), publicKeyFromSeed(seedOf(a.signer)));
    assert.ok(doc.includes(a.attestation.signature) && doc.includes(a.sha256) && doc.includes(a.canonical_json));
  }
});

test("vector canonical JSON", () => {
  for (const v of vectors.canonical_json) {
    assert.equal(canonicalize(safeJsonParse(v.input)), v.canonical);
    assert.ok(doc.includes(v.canonical), "docs/protocol.md does not quote the canonical JSON example");
  }
});
