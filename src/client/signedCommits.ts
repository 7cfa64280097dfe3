/** Helpers to build commits clients sign (docs/protocol.md): the hash covers exactly what the hub stores. */
import { createPublicKey } from "node:crypto";
import type { SubmitCommitBody } from "../api/schemas.js";
import { buildWireCommit, type CommitSigner } from "../contract/buildWireCommit.js";
import type { Operation, WireCommit } from "../contract/Commit.js";
import { computeCommitHash, signCommit } from "../contract/commitHash.js";
import { formatIdentity } from "../contract/hex.js";
import { publicKeyFromSeed, rawPublicKey } from "../contract/keys.js";
import { operationsFromBody } from "../contract/operationsFromBody.js";

export { buildWireCommit, type CommitSigner };

/** The operations the hub builds from a field body, and their commit hash on `parent`. */
export function commitHashOfBody(
  contractId: string,
  parent: string,
  body: SubmitCommitBody,
): { hash: string; data: Operation[] } {
  const data = operationsFromBody(body);
  return { hash: computeCommitHash(contractId, parent, data), data };
}

/**
 * A `POST /contracts/:id/commits` body signed by `signers` (each keyed by its state path,
 * e.g. `/users/buyer.id`), pinned to `parent` (the current head from `GET .../state`).
 */
export function signedSubmitBody(
  contractId: string,
  parent: string,
  body: Omit<SubmitCommitBody, "parent" | "signatures" | "commit">,
  signers: CommitSigner[],
): SubmitCommitBody {
  const { hash } = commitHashOfBody(contractId, parent, body);
  const signatures: Record<string, string> = {};
  for (const s of signers) signatures[s.as ?? identityOf(s.key)] = signCommit(hash, s.key);
  return { ...body, contract_id: contractId, parent, signatures };
}

/** `ed25519:<hex>` of a signing key. */
function identityOf(key: CommitSigner["key"]): string {
  return formatIdentity(key instanceof Uint8Array ? publicKeyFromSeed(key) : rawPublicKey(createPublicKey(key)));
}

/** A push-format commit of `data` on `parent`, signed by `signers`. */
export function signedWireCommit(
  contractId: string,
  parent: string | null,
  data: Operation[],
  signers: CommitSigner[] = [],
): WireCommit {
  return buildWireCommit(contractId, parent, data, signers);
}
