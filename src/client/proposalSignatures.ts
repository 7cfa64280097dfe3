/**
 * Signing a proposal fetched from a hub without trusting it: the hash is recomputed from the
 * proposal's content (contract id, parent, operations), and only that hash is signed.
 */
import type { ProposalView } from "../api/responses.js";
import type { CommitSigner } from "../contract/buildWireCommit.js";
import { ContractError } from "../contract/ContractError.js";
import { computeCommitHash, signCommit } from "../contract/commitHash.js";
import { formatIdentity } from "../contract/hex.js";
import { publicKeyFromSeed } from "../contract/keys.js";

/** The hash of the commit a proposal stands for, recomputed; throws when the proposal's own `hash` differs. */
export function verifiedProposalHash(p: Pick<ProposalView, "hash" | "contract_id" | "parent" | "data">): string {
  const hash = computeCommitHash(p.contract_id, p.parent, p.data);
  if (hash !== p.hash)
    throw new ContractError(
      "VALIDATION_FAILED",
      `The proposal's content hashes to ${hash}, not to the ${p.hash} the hub announced: refusing to sign`,
      { reason: "hash_mismatch", expected: hash, announced: p.hash },
    );
  return hash;
}

/**
 * The `signatures` body for `signProposal`: each signer's signature over the recomputed hash,
 * keyed by its state path (`as`, e.g. `/users/seller.id`) or its identity.
 */
export function proposalSignatures(
  p: Pick<ProposalView, "hash" | "contract_id" | "parent" | "data">,
  signers: Array<CommitSigner & { key: Uint8Array }>,
): Record<string, string> {
  const hash = verifiedProposalHash(p);
  const out: Record<string, string> = {};
  for (const s of signers) out[s.as ?? formatIdentity(publicKeyFromSeed(s.key))] = signCommit(hash, s.key);
  return out;
}
