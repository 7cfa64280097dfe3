import { createPublicKey, type KeyObject } from "node:crypto";
import type { Attestation, Operation, WireCommit } from "./Commit.js";
import { computeCommitHash, signCommit } from "./commitHash.js";
import { formatIdentity } from "./hex.js";
import { publicKeyFromSeed, rawPublicKey } from "./keys.js";

/** A signer for `buildWireCommit`: its seed (or private KeyObject) and the key it signs under. */
export interface CommitSigner {
  key: Uint8Array | KeyObject;
  /** `head.signatures` key: an `.id` state path; default `ed25519:<hex>` of the key. */
  as?: string;
}

/** Builds a push-format commit with its hash and the given signers' signatures (for clients, tests and vectors). */
export function buildWireCommit(
  contractId: string,
  parent: string | null,
  data: Operation[],
  signers: CommitSigner[] = [],
  attestations?: Attestation[],
): WireCommit {
  const hash = computeCommitHash(contractId, parent, data);
  const signatures: Record<string, string> = {};
  for (const s of signers) {
    const name =
      s.as ??
      formatIdentity(s.key instanceof Uint8Array ? publicKeyFromSeed(s.key) : rawPublicKey(createPublicKey(s.key)));
    signatures[name] = signCommit(hash, s.key);
  }
  const head: WireCommit["head"] = { parent, signatures };
  if (attestations !== undefined) head.attestations = attestations;
  return { hash, parent, data, head };
}
