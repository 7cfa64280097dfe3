/**
 * Commit signatures and attestations (docs/protocol.md): every signature present must verify,
 * and the verified keys are the commit's signers. A batch's signatures go to VerifyPool's
 * worker threads, so the signatures of a whole push are checked in parallel on every core.
 */

import { verifyAttestationAsync } from "./attestation.js";
import type { Attestation, WireCommit } from "./Commit.js";
import { ContractError } from "./ContractError.js";
import { verifyCommitSignature } from "./commitHash.js";
import { IDENTITY_PREFIX, isLowerHex } from "./hex.js";
import { verifyPool } from "./VerifyPool.js";
import { validateCommitShape } from "./validateCommitShape.js";

/** The key (hex) a `head.signatures` entry names: an identity, or the `.id` value at a state path. */
export function resolveSignerKey(signer: string, data: ReadonlyMap<string, unknown>): string {
  if (signer.startsWith(IDENTITY_PREFIX)) return signer.slice(IDENTITY_PREFIX.length);
  const key = data.get(signer);
  if (!isLowerHex(key, 32)) {
    throw new ContractError(
      "VALIDATION_FAILED",
      `Cannot verify commit signature: no public key is stored at signer path "${signer}"`,
      { reason: "signer_unknown", signer },
    );
  }
  return key;
}

function badSignature(signer: string): ContractError {
  return new ContractError("VALIDATION_FAILED", `Commit signature of "${signer}" does not verify`, {
    reason: "bad_signature",
    signer,
  });
}

/**
 * Verifies every signature of a (shape-validated) commit against the state before it; returns the signer keys.
 * A single signature is verified synchronously: the caller awaits it anyway, and a thread hop
 * would only add latency (a quarter of the per-commit cost); several go to the worker threads
 * in parallel. Batches use verifyBatchSignatures, which always verifies on the workers.
 */
export async function verifySigners(
  commit: WireCommit,
  data: ReadonlyMap<string, unknown>,
  parallel = false,
): Promise<string[]> {
  const entries = Object.entries(commit.head.signatures);
  const keys = entries.map(([signer]) => resolveSignerKey(signer, data));
  if (entries.length === 1 && !parallel) {
    // Keys go to the cache as hex: it is their cache id, so a hit costs no decoding.
    if (!verifyCommitSignature(commit.hash, keys[0]!, entries[0]![1])) {
      throw badSignature(entries[0]![0]);
    }
    return keys;
  }
  const results = await Promise.all(entries.map(([, sig], i) => verifyPool.verifyHash(keys[i]!, commit.hash, sig)));
  const failed = results.indexOf(false);
  if (failed >= 0) throw badSignature(entries[failed]![0]);
  return [...new Set(keys)];
}

/** Verifies a commit's attestations (bound to contract and parent); returns them all or throws. */
export async function verifyAttestations(contractId: string, commit: WireCommit): Promise<Attestation[]> {
  const list = commit.head.attestations ?? [];
  const results = await Promise.all(list.map((a) => verifyAttestationAsync(a, contractId, commit.parent)));
  const failed = results.indexOf(false);
  if (failed >= 0) {
    throw new ContractError("VALIDATION_FAILED", `Attestation ${failed} by "${list[failed]!.oracle}" does not verify`, {
      reason: "bad_attestation",
      attestation: failed,
    });
  }
  return list;
}

/**
 * Verifies the signatures of a batch of commits in parallel before the batch is validated in
 * order. State-path signers are resolved as the batch's own posts progress. Returns the signer
 * keys per commit, or undefined for a commit that could not be pre-verified (malformed, unknown
 * signer, bad signature): validating it in order then reports the precise error at the right commit.
 * `prevalidated`: the commits are already validateCommitShape's output (not re-checked).
 */
export async function verifyBatchSignatures(
  state: { contractId: string; data: ReadonlyMap<string, unknown> },
  commits: readonly unknown[],
  options: { prevalidated?: boolean } = {},
): Promise<(string[] | undefined)[]> {
  return Promise.all(startBatchSignatures(state, commits, options));
}

/**
 * verifyBatchSignatures, one promise per commit (each settles as soon as that commit's
 * signatures are checked; none rejects). A caller that validates the batch in order awaits
 * each commit's promise just before deciding it, so in-order validation on the event loop
 * overlaps the verification of later commits on the worker threads.
 */
export function startBatchSignatures(
  state: { contractId: string; data: ReadonlyMap<string, unknown> },
  commits: readonly unknown[],
  options: { prevalidated?: boolean } = {},
): Promise<string[] | undefined>[] {
  const batch = new SignatureBatch(state.data);
  return commits.map((raw) => {
    let commit: WireCommit;
    try {
      commit = options.prevalidated ? (raw as WireCommit) : validateCommitShape(raw, { contractId: state.contractId });
    } catch {
      return Promise.resolve(undefined);
    }
    return batch.add(commit);
  });
}

/**
 * Starts verifying a batch's signatures commit by commit, as each is shape-checked: a push
 * hands every commit to the verification workers the moment it is validated, so verification runs
 * while the event loop checks the rest. State-path signers resolve against `data` (read at
 * `add`, so later changes to it do not matter) as the batch's own posts progress.
 */
export class SignatureBatch {
  private readonly overlay = new Map<string, unknown>();
  private readonly lookup: ReadonlyMap<string, unknown>;
  /**
   * The keys each added commit's signatures were resolved to, in the order of `add` (undefined
   * where a signer could not be resolved). A caller that decides the commits on a later state
   * than the batch started from checks them with `signerKeysHold` before trusting a verdict.
   */
  readonly keys: (readonly string[] | undefined)[] = [];

  constructor(data: ReadonlyMap<string, unknown>) {
    this.lookup = {
      get: (k: string) => (this.overlay.has(k) ? this.overlay.get(k) : data.get(k)),
    } as ReadonlyMap<string, unknown>;
  }

  /** Starts verifying a shape-validated commit; resolves to its signer keys, or undefined when it could not be pre-verified. */
  add(commit: WireCommit): Promise<string[] | undefined> {
    // The keys resolve now, against the state before this commit; only the verification is deferred.
    const keys = resolvedKeys(commit, this.lookup);
    this.keys.push(keys);
    const verdict = keys === undefined ? Promise.resolve(undefined) : verifyWithKeys(commit, keys);
    for (const op of commit.data)
      if (op.method === "post" && op.path !== undefined) this.overlay.set(op.path, op.value);
    return verdict;
  }
}

/** A verdict not reached (a worker failed): the commit is then verified in order. */
const none = () => undefined;

/** The verdict of a commit's signatures under resolved keys: the distinct keys, or undefined if any fails. */
function verifyWithKeys(commit: WireCommit, keys: string[]): Promise<string[] | undefined> {
  const sigs = Object.values(commit.head.signatures);
  // One signature, the usual case: no Promise.all and no set of keys. The verdict is `keys`
  // itself, not a copy: it becomes the stored commit's signers, and a push holds one array
  // per commit to its append instead of two (docs/storage.md). Neither is ever modified.
  if (keys.length === 1)
    return verifyPool.verifyHash(keys[0]!, commit.hash, sigs[0]!).then((ok) => (ok ? keys : undefined), none);
  return Promise.all(keys.map((k, i) => verifyPool.verifyHash(k, commit.hash, sigs[i]!))).then(
    (results) => (results.includes(false) ? undefined : [...new Set(keys)]),
    none,
  );
}

function resolvedKeys(commit: WireCommit, data: ReadonlyMap<string, unknown>): string[] | undefined {
  try {
    return Object.keys(commit.head.signatures).map((signer) => resolveSignerKey(signer, data));
  } catch {
    return undefined;
  }
}

/**
 * Whether a commit's signers resolve, against `data`, to the same keys, entry by entry, as
 * `keys` (what a SignatureBatch verified them with). A verdict reached on another state is
 * the commit's verdict on this one exactly when they do: a signature verifies against a key,
 * and the state only chooses the key.
 */
export function signerKeysHold(
  commit: WireCommit,
  keys: readonly string[] | undefined,
  data: ReadonlyMap<string, unknown>,
): boolean {
  if (keys === undefined) return false;
  const now = resolvedKeys(commit, data);
  return now !== undefined && now.length === keys.length && now.every((k, i) => k === keys[i]);
}
