/**
 * The client's side of the hub's transparency log (docs/transparency.md): nothing the hub
 * says is taken on trust. A checkpoint must carry the pinned log key's signature; it must
 * extend the newest checkpoint the client verified before (a smaller tree is a rollback, a
 * tree that does not contain the old one is a fork); and the client's head commit must be
 * proven to be in it; a client that pinned witnesses also requires their quorum of
 * cosignatures on the checkpoint. Each failure is a CORRUPTED error naming the check
 * (`details.reason`: `log_signature`, `log_witness`, `log_rollback`, `log_fork`, `log_inclusion`).
 *
 * The one answer that is not a proof is "the head is newer than this checkpoint" (a hub
 * whose checkpoints wait for witness cosignatures). It is believed only as far as the client
 * can check it, and only for a bounded time: see `checkHubLog`.
 */
import { ContractError } from "../contract/ContractError.js";
import { CheckpointError, keyId, splitNote, verifyCheckpoint } from "../tlog/checkpoint.js";
import { parseWitnessVerifierKey, verifyCosignatures, type WitnessKey } from "../tlog/cosignature.js";
import { leafHash, verifyConsistency, verifyInclusion } from "../tlog/merkle.js";
import type { HubClient } from "./HubClient.js";
import { parseConsistencyAnswer, parseInclusionAnswer } from "./proofAnswers.js";

/**
 * The log key a client pinned: the hub's origin and ed25519 public key (hex); and, when the
 * client requires witnesses, their verifier keys and how many must have cosigned (default:
 * all of them).
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
  /**
   * A head commit the hub numbered past this checkpoint (not yet cosigned): owed until a
   * later check proves it, which must happen within the grace.
   */
  head_pending?: string;
  /** Its leaf index, as the hub gave it when it was found pending: later answers must agree. */
  head_pending_leaf?: number;
  /** When a check first found it pending (ms since the epoch, the client's clock): the grace runs from here. */
  pending_since?: number;
}

export type LogCheck = "signature" | "witness" | "rollback" | "fork" | "inclusion";

/** How long a head may stay unproven, from the first check that found it pending, by default. */
export const PENDING_GRACE_MS = 10 * 60_000;

export interface CheckHubLogOptions {
  /**
   * How long to wait for a checkpoint that covers `head` when the hub says the head is newer
   * than its checkpoint (a hub whose checkpoints wait for witness cosignatures); default 0.
   */
  headWaitMs?: number;
  /**
   * The head's `leaf_index` as the hub answered it before (the answer of the push or submit,
   * a pulled commit): the hub's later answers about the head must agree with it.
   */
  headLeafIndex?: number;
  /**
   * How long a head may stay pending, counted from the first check that found it pending
   * (`pending_since` of the checkpoint that check returned); default `PENDING_GRACE_MS`.
   * A later check that still cannot prove it fails the inclusion check.
   */
  pendingGraceMs?: number;
}

type ProofSource = Pick<HubClient, "url" | "checkpoint" | "consistencyProof" | "inclusionProof">;

const fail = (
  check: LogCheck,
  hub: string,
  message: string,
  kept: VerifiedCheckpoint | null,
  seen: { size: number } | null,
  more: Record<string, unknown> = {},
) =>
  new ContractError("CORRUPTED", `Hub ${hub} failed the ${check} check: ${message}`, {
    reason: `log_${check}`,
    check,
    hub,
    kept_size: kept?.size ?? null,
    hub_size: seen?.size ?? null,
    ...more,
  });

/** A head the current checkpoint does not cover yet, and its leaf as the hub numbered it (when known). */
interface Pending {
  hash: string;
  leaf: number | undefined;
}

/**
 * Fetches the hub's checkpoint and checks it against `pinned` and `kept` (the newest
 * verified before, or null), then the inclusion of `head` (a commit hash, or null). Returns
 * the checkpoint to keep from now on; throws a CORRUPTED error naming the failed check.
 *
 * A hub that requires witness cosignatures serves its newest cosigned checkpoint, which may
 * not cover a commit it just acknowledged. The hub's answer that the head's leaf lies past
 * the checkpoint is believed only when it is consistent with what the client knows: the
 * leaf is a number at or past the checkpoint's size, equal to the leaf the hub gave for that
 * commit before (`headLeafIndex`, or the one recorded when it was first found pending), and
 * the checkpoint carries cosignatures (a hub that does not wait for witnesses signs every
 * commit it acknowledged, so it has no such excuse). The check then waits up to `headWaitMs`
 * for a checkpoint that covers the head, and otherwise returns the checkpoint with
 * `head_pending` set (every other check passed). A pending head stays owed, even once the
 * working copy's head has moved on, until a check proves it; a check later than the grace
 * (`pendingGraceMs` after the first that found it pending) that still cannot fails.
 */
export async function checkHubLog(
  client: ProofSource,
  pinned: PinnedLogKey,
  kept: VerifiedCheckpoint | null,
  head: string | null,
  options: CheckHubLogOptions = {},
): Promise<VerifiedCheckpoint> {
  const until = Date.now() + (options.headWaitMs ?? 0);
  // A head found pending before is owed first: its leaf is older than any later head's.
  const owed = kept?.head_pending;
  const heads = owed !== undefined && owed !== head ? [owed, head] : [head];
  const known = (hash: string): number[] => [
    ...(hash === head && options.headLeafIndex !== undefined ? [options.headLeafIndex] : []),
    ...(hash === owed && kept?.head_pending_leaf !== undefined ? [kept.head_pending_leaf] : []),
  ];
  for (;;) {
    const { fresh, pending } = await checkOnce(client, pinned, kept, heads, known);
    if (pending === null) return fresh;
    if (Date.now() >= until) return stillPending(client.url, kept, fresh, pending, options);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The checkpoint to keep with `pending` owed, unless it has been pending longer than the grace. */
function stillPending(
  hub: string,
  kept: VerifiedCheckpoint | null,
  fresh: VerifiedCheckpoint,
  pending: Pending,
  options: CheckHubLogOptions,
): VerifiedCheckpoint {
  const now = Date.now();
  const grace = options.pendingGraceMs ?? PENDING_GRACE_MS;
  // A checkpoint kept by an older client has no `pending_since`: the grace starts now.
  const since = kept?.head_pending === pending.hash ? (kept.pending_since ?? now) : now;
  if (now - since > grace) {
    throw fail(
      "inclusion",
      hub,
      `commit ${pending.hash}${pending.leaf === undefined ? "" : ` (leaf ${pending.leaf})`} is still not in its checkpoint of ${fresh.size}, ` +
        `${Math.round((now - since) / 1000)} s after it was first found pending (the grace is ${Math.round(grace / 1000)} s)`,
      kept,
      fresh,
      { head: pending.hash, leaf_index: pending.leaf ?? null, pending_since: since, pending_grace_ms: grace },
    );
  }
  const leaf = pending.leaf ?? (kept?.head_pending === pending.hash ? kept.head_pending_leaf : undefined);
  return {
    ...fresh,
    head_pending: pending.hash,
    ...(leaf === undefined ? {} : { head_pending_leaf: leaf }),
    pending_since: since,
  };
}

const witnessKeys = (pinned: PinnedLogKey): WitnessKey[] => (pinned.witnesses ?? []).map(parseWitnessVerifierKey);

/** Whether the note carries a signature line besides the log key's own (a witness's cosignature). */
function carriesCosignatures(note: string, origin: string, publicKey: Buffer): boolean {
  const id = keyId(origin, publicKey);
  return splitNote(note).signatures.some((s) => !(s.name === origin && s.blob.subarray(0, 4).equals(id)));
}

async function checkOnce(
  client: ProofSource,
  pinned: PinnedLogKey,
  kept: VerifiedCheckpoint | null,
  heads: readonly (string | null)[],
  known: (hash: string) => number[],
): Promise<{ fresh: VerifiedCheckpoint; pending: Pending | null }> {
  const hub = client.url;
  const publicKey = Buffer.from(pinned.public_key.replace(/^ed25519:/, ""), "hex");
  let note: string;
  let seen: { size: number; root: Buffer };
  try {
    note = await client.checkpoint();
    if (typeof note !== "string") throw new CheckpointError("checkpoint is not a text");
    seen = verifyCheckpoint(note, pinned.origin, publicKey);
  } catch (err) {
    if (!(err instanceof CheckpointError)) throw err;
    throw fail("signature", hub, err.message, kept, null);
  }
  const trusted = witnessKeys(pinned);
  // Witnesses are counted by key, not by name: one key pinned under two names is one witness.
  const keyOf = new Map(trusted.map((t) => [t.name, t.publicKey.toString("hex")]));
  const quorum = pinned.witness_quorum ?? new Set(keyOf.values()).size;
  if (quorum > 0) {
    const byKey = new Map(verifyCosignatures(note, trusted).map((c) => [keyOf.get(c.name), c.name]));
    const cosigned = [...byKey.values()];
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
    let proof: Buffer[] = [];
    if (seen.size > kept.size) {
      const answer = parseConsistencyAnswer(await client.consistencyProof(kept.size, seen.size));
      if (typeof answer === "string" || answer.from !== kept.size || answer.to !== seen.size) {
        const why = typeof answer === "string" ? answer : `it answered a proof from ${answer.from} to ${answer.to}`;
        throw fail("fork", hub, `no consistency proof from ${kept.size} to ${seen.size}: ${why}`, kept, seen);
      }
      proof = answer.proof;
    }
    if (!verifyConsistency(kept.size, seen.size, Buffer.from(kept.root, "hex"), seen.root, proof)) {
      throw fail(
        "fork",
        hub,
        `its log of ${seen.size} commits does not extend the log of ${kept.size} seen before`,
        kept,
        seen,
      );
    }
  }
  // A witness's cosignature says the hub serves cosigned checkpoints, which may lag behind it.
  const mayLag = carriesCosignatures(note, pinned.origin, publicKey);
  for (const head of heads) {
    if (head === null) continue;
    const pending = await inclusion(client, { kept, seen, mayLag }, head, known(head));
    if (pending !== null) return { fresh, pending };
  }
  return { fresh, pending: null };
}

/**
 * Proves `head` in the checkpoint `seen`; returns null when proven, the pending head when the
 * hub plausibly numbered it past the checkpoint, and throws the inclusion check's failure
 * otherwise. `known`: the leaf indices the hub gave for the head before.
 */
async function inclusion(
  client: ProofSource,
  at: { kept: VerifiedCheckpoint | null; seen: { size: number; root: Buffer }; mayLag: boolean },
  head: string,
  known: readonly number[],
): Promise<Pending | null> {
  const { kept, seen } = at;
  const refuse = (why: string, leaf?: number) =>
    fail("inclusion", client.url, `commit ${head} is not proven to be in its log of ${seen.size}: ${why}`, kept, seen, {
      head,
      ...(leaf === undefined ? {} : { leaf_index: leaf }),
    });
  const disagrees = (leaf: number) => known.find((k) => k !== leaf);
  // The empty tree holds no commit, and the hub proves nothing against it (size 0 is refused).
  if (seen.size === 0) {
    if (!at.mayLag) throw refuse("its checkpoint of the empty tree carries no cosignature");
    return { hash: head, leaf: known[0] };
  }
  let answer: unknown;
  try {
    answer = await client.inclusionProof(head, seen.size);
  } catch (err) {
    if (!(err instanceof ContractError) || (err.code !== "NOT_FOUND" && err.code !== "INVALID_REQUEST")) throw err;
    if (err.code === "NOT_FOUND") throw refuse("it does not know the commit");
    // "The head is newer than this checkpoint": an excuse, not a proof; believed only as far as it can be checked.
    const leaf = err.details?.leaf_index;
    if (typeof leaf !== "number" || !Number.isSafeInteger(leaf) || leaf < 0) {
      throw refuse(`it refused the proof (${err.message})`);
    }
    if (leaf < seen.size) throw refuse(`it says the commit is leaf ${leaf}, which its checkpoint holds`, leaf);
    const before = disagrees(leaf);
    if (before !== undefined)
      throw refuse(`it says the commit is leaf ${leaf}, but it numbered it ${before} before`, leaf);
    if (!at.mayLag) {
      throw refuse(
        `it says the commit is leaf ${leaf}, past its checkpoint, but the checkpoint carries no cosignature: ` +
          "a hub that does not wait for witnesses signs every commit it acknowledged",
        leaf,
      );
    }
    return { hash: head, leaf };
  }
  const p = parseInclusionAnswer(answer);
  if (typeof p === "string") throw refuse(p);
  if (p.tree_size !== seen.size) throw refuse(`it answered a proof for a tree of ${p.tree_size}`, p.leaf_index);
  const before = disagrees(p.leaf_index);
  if (before !== undefined) {
    throw refuse(`it proves the commit as leaf ${p.leaf_index}, but it numbered it ${before} before`, p.leaf_index);
  }
  if (!verifyInclusion(leafHash(Buffer.from(head, "hex")), p.leaf_index, seen.size, p.proof, seen.root)) {
    throw refuse("the proof does not verify", p.leaf_index);
  }
  return null;
}
