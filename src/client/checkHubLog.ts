/**
 * The client's side of the hub's transparency log (docs/transparency.md): nothing the hub
 * says is taken on trust. A checkpoint must carry the pinned log key's signature; it must
 * extend the newest checkpoint the client verified before (a smaller tree is a rollback, a
 * tree that does not contain the old one is a fork); and the client's head commit must be
 * proven to be in it; a client that pinned witnesses also requires their quorum of
 * cosignatures on the checkpoint. Each failure is a CORRUPTED error naming the check
 * (`details.reason`: `log_signature`, `log_witness`, `log_rollback`, `log_fork`, `log_inclusion`).
 */
import { ContractError } from "../contract/ContractError.js";
import { CheckpointError, verifyCheckpoint } from "../tlog/checkpoint.js";
import { parseWitnessVerifierKey, verifyCosignatures, type WitnessKey } from "../tlog/cosignature.js";
import { leafHash, verifyConsistency, verifyInclusion } from "../tlog/merkle.js";
import type { HubClient } from "./HubClient.js";

/**
 * The log key a client pinned: the hub's origin and ed25519 public key (hex); and, when the
 * client requires witnesses, their verifier keys and how many must have cosigned.
 */
export interface PinnedLogKey {
  origin: string;
  public_key: string;
  witnesses?: string[];
  witness_quorum?: number;
}

/** A checkpoint the client verified: its size, root (hex) and the note itself. */
export interface VerifiedCheckpoint {
  size: number;
  root: string;
  note: string;
  /** A head commit the hub numbered past this checkpoint (not yet cosigned): proven at the next check. */
  head_pending?: string;
}

export type LogCheck = "signature" | "witness" | "rollback" | "fork" | "inclusion";

export interface CheckHubLogOptions {
  /**
   * How long to wait for a checkpoint that covers `head` when the hub says the head is newer
   * than its checkpoint (a hub whose checkpoints wait for witness cosignatures); default 0.
   */
  headWaitMs?: number;
}

type ProofSource = Pick<HubClient, "url" | "checkpoint" | "consistencyProof" | "inclusionProof">;

const fail = (
  check: LogCheck,
  hub: string,
  message: string,
  kept: VerifiedCheckpoint | null,
  seen: { size: number } | null,
) =>
  new ContractError("CORRUPTED", `Hub ${hub} failed the ${check} check: ${message}`, {
    reason: `log_${check}`,
    check,
    hub,
    kept_size: kept?.size ?? null,
    hub_size: seen?.size ?? null,
  });

const bytes = (hex: readonly string[]) => hex.map((h) => Buffer.from(h, "hex"));

/**
 * Fetches the hub's checkpoint and checks it against `pinned` and `kept` (the newest
 * verified before, or null), then the inclusion of `head` (a commit hash, or null). Returns
 * the checkpoint to keep from now on; throws a CORRUPTED error naming the failed check.
 *
 * A hub that requires witness cosignatures serves its newest cosigned checkpoint, which may
 * not cover a commit it just acknowledged: when the hub says the head's leaf lies past the
 * checkpoint, the check waits up to `headWaitMs` for one that covers it, and otherwise
 * returns the checkpoint with `head_pending` set (every other check passed).
 */
export async function checkHubLog(
  client: ProofSource,
  pinned: PinnedLogKey,
  kept: VerifiedCheckpoint | null,
  head: string | null,
  options: CheckHubLogOptions = {},
): Promise<VerifiedCheckpoint> {
  const until = Date.now() + (options.headWaitMs ?? 0);
  for (;;) {
    const { fresh, covered } = await checkOnce(client, pinned, kept, head);
    if (covered) return fresh;
    if (Date.now() >= until) return { ...fresh, head_pending: head! };
    await new Promise((r) => setTimeout(r, 100));
  }
}

const witnessKeys = (pinned: PinnedLogKey): WitnessKey[] => (pinned.witnesses ?? []).map(parseWitnessVerifierKey);

async function checkOnce(
  client: ProofSource,
  pinned: PinnedLogKey,
  kept: VerifiedCheckpoint | null,
  head: string | null,
): Promise<{ fresh: VerifiedCheckpoint; covered: boolean }> {
  const hub = client.url;
  const publicKey = Buffer.from(pinned.public_key.replace(/^ed25519:/, ""), "hex");
  const note = await client.checkpoint();
  let seen: { size: number; root: Buffer };
  try {
    seen = verifyCheckpoint(note, pinned.origin, publicKey);
  } catch (err) {
    if (!(err instanceof CheckpointError)) throw err;
    throw fail("signature", hub, err.message, kept, null);
  }
  const quorum = pinned.witness_quorum ?? 0;
  if (quorum > 0) {
    const cosigned = verifyCosignatures(note, witnessKeys(pinned)).map((c) => c.name);
    if (cosigned.length < quorum) {
      const names = cosigned.length === 0 ? "none" : cosigned.join(", ");
      throw fail(
        "witness",
        hub,
        `its checkpoint of ${seen.size} carries ${cosigned.length} valid cosignature(s) of the ${quorum} required from the pinned witnesses (${names})`,
        kept,
        seen,
      );
    }
  }
  const fresh: VerifiedCheckpoint = { size: seen.size, root: seen.root.toString("hex"), note };
  if (kept !== null && kept.size > 0) {
    if (seen.size < kept.size) {
      throw fail("rollback", hub, `its log shrank from ${kept.size} to ${seen.size} commits`, kept, seen);
    }
    const proof = seen.size === kept.size ? [] : (await client.consistencyProof(kept.size, seen.size)).proof;
    if (!verifyConsistency(kept.size, seen.size, Buffer.from(kept.root, "hex"), seen.root, bytes(proof))) {
      throw fail(
        "fork",
        hub,
        `its log of ${seen.size} commits does not extend the log of ${kept.size} seen before`,
        kept,
        seen,
      );
    }
  }
  if (head === null) return { fresh, covered: true };
  // No commit is in the empty tree (and the hub refuses size 0 for an inclusion proof): a
  // head pushed before the first cosigned checkpoint past it waits like any other.
  if (seen.size === 0) return { fresh, covered: false };
  let proven = false;
  try {
    const p = await client.inclusionProof(head, seen.size);
    proven =
      p.tree_size === seen.size &&
      verifyInclusion(leafHash(Buffer.from(head, "hex")), p.leaf_index, seen.size, bytes(p.proof), seen.root);
  } catch (err) {
    if (!(err instanceof ContractError) || (err.code !== "NOT_FOUND" && err.code !== "INVALID_REQUEST")) throw err;
    // The hub numbered the head past this checkpoint: not yet covered, not refused.
    const leaf = err.details?.leaf_index;
    if (err.code === "INVALID_REQUEST" && typeof leaf === "number" && leaf >= seen.size)
      return { fresh, covered: false };
  }
  if (!proven) {
    throw fail("inclusion", hub, `commit ${head} is not proven to be in its log of ${seen.size}`, kept, seen);
  }
  return { fresh, covered: true };
}
