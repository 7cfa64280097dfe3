/**
 * The hub's proof answers, checked field by field before any is used: a client that trusts
 * nothing the hub says cannot trust the shape of its JSON either. Each parser returns the
 * proof as bytes, or a sentence saying what is wrong (the caller turns it into the failed
 * check's CORRUPTED error).
 */

import { isLowerHex } from "../contract/hex.js";

/** More hashes than any proof in a tree of 2^53 leaves needs (inclusion ≤ 53, consistency ≤ 2 · 53). */
const MAX_PROOF_HASHES = 128;

export interface InclusionAnswer {
  leaf_index: number;
  tree_size: number;
  proof: Buffer[];
}

export interface ConsistencyAnswer {
  from: number;
  to: number;
  proof: Buffer[];
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
const isSize = (x: unknown): x is number => typeof x === "number" && Number.isSafeInteger(x) && x >= 0;

function proofOf(x: unknown): Buffer[] | string {
  if (!Array.isArray(x)) return "its proof is not a list of hashes";
  if (x.length > MAX_PROOF_HASHES) return `its proof has ${x.length} hashes`;
  for (const h of x) if (!isLowerHex(h, 32)) return "its proof holds a value that is not a hex SHA-256 hash";
  return x.map((h: string) => Buffer.from(h, "hex"));
}

/** `{leaf_index, tree_size, proof}` of `GET /proofs/inclusion`, or why it is malformed. */
export function parseInclusionAnswer(x: unknown): InclusionAnswer | string {
  if (!isRecord(x)) return "its inclusion answer is not an object";
  if (!isSize(x.leaf_index)) return "its inclusion answer has no valid leaf_index";
  if (!isSize(x.tree_size)) return "its inclusion answer has no valid tree_size";
  const proof = proofOf(x.proof);
  if (typeof proof === "string") return proof;
  return { leaf_index: x.leaf_index, tree_size: x.tree_size, proof };
}

/** `{from, to, proof}` of `GET /proofs/consistency`, or why it is malformed. */
export function parseConsistencyAnswer(x: unknown): ConsistencyAnswer | string {
  if (!isRecord(x)) return "its consistency answer is not an object";
  if (!isSize(x.from) || !isSize(x.to)) return "its consistency answer has no valid from and to";
  const proof = proofOf(x.proof);
  if (typeof proof === "string") return proof;
  return { from: x.from, to: x.to, proof };
}
