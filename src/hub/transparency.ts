/**
 * The hub as a transparency log (docs/transparency.md): signed checkpoints of the Merkle tree
 * over every stored commit, and inclusion and consistency proofs against them. Operations
 * take their collaborators explicitly: the store, the log key, and the read check of a
 * contract (a commit of a contract the caller may not read is NOT_FOUND, as the contract is).
 */

import type { Caller } from "../api/Caller.js";
import type {
  CheckpointKeyResult,
  CheckpointResult,
  ConsistencyProofResult,
  InclusionProofResult,
} from "../api/responses.js";
import { ContractError } from "../contract/ContractError.js";
import { decodeHash } from "../contract/hex.js";
import type { Store } from "../store/Store.js";
import type { LogKey } from "../tlog/LogKey.js";
import { proveConsistency, proveInclusion, type ReadNodes, treeRoot } from "../tlog/proofs.js";
import { nonNegativeInteger } from "./pageQuery.js";

export interface TransparencyParts {
  store: Store;
  logKey: () => Promise<LogKey>;
  /** Throws NOT_FOUND when `caller` may not read contract `id`. */
  checkReadable: (caller: Caller, id: string) => Promise<unknown>;
}

const reader =
  (store: Store): ReadNodes =>
  (ids) =>
    store.readTreeNodes(ids);
const hex = (proof: Buffer[]) => proof.map((p) => p.toString("hex"));

/**
 * Signs checkpoints, one per tree size: the size is read after every acknowledged append
 * returned, so the note covers each commit acknowledged before the request; a size already
 * signed is served from memory.
 */
export class CheckpointSigner {
  #last: CheckpointResult | undefined;

  async current(parts: Pick<TransparencyParts, "store" | "logKey">): Promise<CheckpointResult> {
    const size = await parts.store.treeSize();
    const last = this.#last;
    if (last !== undefined && last.size === size) return last;
    const [key, root] = await Promise.all([parts.logKey(), treeRoot(reader(parts.store), size)]);
    const result = { checkpoint: key.sign({ size, root }), size, root: root.toString("hex") };
    if (this.#last === undefined || this.#last.size < size) this.#last = result;
    return result;
  }
}

/** `GET /checkpoint/key`. */
export async function checkpointKey(parts: Pick<TransparencyParts, "logKey">): Promise<CheckpointKeyResult> {
  return (await parts.logKey()).info();
}

function treeSizeParam(value: unknown, name: string, current: number): number {
  const n = nonNegativeInteger(value, name) ?? current;
  if (n > current) {
    throw new ContractError("INVALID_REQUEST", `Invalid ${name}: the tree has ${current} leaves, not ${n}`, {
      reason: "tree_size",
      field: name,
      tree_size: current,
    });
  }
  return n;
}

/** `GET /proofs/inclusion?hash=&size=`: the commit's leaf and its path to the root of `size` (default: now). */
export async function inclusionProof(
  parts: TransparencyParts,
  caller: Caller,
  q: { hash?: unknown; size?: unknown },
): Promise<InclusionProofResult> {
  const hash = decodeHash(q.hash, "hash").toString("hex");
  const leaf = await parts.store.findLeaf(hash);
  const missing = () =>
    new ContractError("NOT_FOUND", `Commit ${hash} not found`, { reason: "commit_not_found", hash });
  if (leaf === null) throw missing();
  await parts.checkReadable(caller, leaf.contractId).catch((err: unknown) => {
    throw err instanceof ContractError && err.code === "NOT_FOUND" ? missing() : err;
  });
  if (!Number.isSafeInteger(leaf.leafIndex) || leaf.leafIndex < 0) {
    // A damaged row: no proof can exist for it, and computing one would fail as an internal error.
    throw new ContractError("CORRUPTED", `Commit ${hash} is stored with leaf ${leaf.leafIndex}, which is no leaf`, {
      reason: "corrupted",
      contract_id: leaf.contractId,
      hash,
      leaf_index: leaf.leafIndex,
    });
  }
  const current = await parts.store.treeSize();
  const size = treeSizeParam(q.size, "size", current);
  if (leaf.leafIndex >= size) {
    throw new ContractError("INVALID_REQUEST", `Commit ${hash} is leaf ${leaf.leafIndex}, not in a tree of ${size}`, {
      reason: "tree_size",
      field: "size",
      leaf_index: leaf.leafIndex,
    });
  }
  const proof = await proveInclusion(reader(parts.store), leaf.leafIndex, size);
  return { leaf_index: leaf.leafIndex, tree_size: size, proof: hex(proof) };
}

/** `GET /proofs/consistency?from=&to=`: the tree of `to` leaves extends the tree of `from` (1 ≤ from ≤ to ≤ now). */
export async function consistencyProof(
  parts: Pick<TransparencyParts, "store">,
  q: { from?: unknown; to?: unknown },
): Promise<ConsistencyProofResult> {
  const current = await parts.store.treeSize();
  const to = treeSizeParam(q.to, "to", current);
  const from = nonNegativeInteger(q.from, "from");
  if (from === undefined || from < 1 || from > to) {
    throw new ContractError("INVALID_REQUEST", `Invalid from: expected 1 ≤ from ≤ to (${to})`, {
      reason: "tree_size",
      field: "from",
      tree_size: current,
    });
  }
  const proof = await proveConsistency(reader(parts.store), from, to);
  return { from, to, proof: hex(proof) };
}
