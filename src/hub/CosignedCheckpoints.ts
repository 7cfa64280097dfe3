/**
 * A hub that requires k witness cosignatures (docs/transparency.md): it submits each new
 * checkpoint to its witnesses (the C2SP add-checkpoint body, with a consistency proof from
 * the size each witness cosigned last), collects their cosignatures, and serves only the
 * newest checkpoint that carries at least `quorum` valid ones — never one that lacks them.
 * While witnesses are down or refuse, clients keep getting the last cosigned checkpoint
 * (older, still valid), and `status()` says how far behind it is and why.
 *
 * The newest cosigned checkpoint lives in the store (`tlog_cosigned`), not only here: a round
 * stores its checkpoint (only a larger tree replaces the stored one) before serving it, and
 * every request reads the stored one and serves the larger of it and this instance's. So
 * instances sharing one database never serve a checkpoint older than one any of them served
 * before the request came in: a client sent to each in turn never sees the tree shrink.
 *
 * Transport-free: each witness comes with a `submit` function (the HTTP POST lives with the
 * command that starts the hub). Rounds run one at a time, every `intervalMs`, and only when
 * the tree grew past the served checkpoint.
 */
import type { CheckpointResult } from "../api/responses.js";
import { ContractError } from "../contract/ContractError.js";
import type { Store } from "../store/Store.js";
import { formatAddCheckpoint } from "../tlog/addCheckpointBody.js";
import { CheckpointError, verifyCheckpoint } from "../tlog/checkpoint.js";
import {
  type VerifiedCosignature,
  verifyCosignatures,
  type WitnessKey,
  witnessVerifierKey,
} from "../tlog/cosignature.js";
import type { LogKey } from "../tlog/LogKey.js";
import { proveConsistency, treeRoot } from "../tlog/proofs.js";

/** One witness of the hub. */
export interface CheckpointWitness {
  key: WitnessKey;
  /** Where it is (reported in the status, never parsed here). */
  url: string;
  /** Sends an add-checkpoint body; resolves with the answer's status and text; rejects when unreachable. */
  submit(body: string): Promise<{ status: number; body: string }>;
}

export interface WitnessPolicy {
  witnesses: readonly CheckpointWitness[];
  /** Cosignatures a checkpoint needs before it is served (1 ≤ quorum ≤ witnesses). */
  quorum: number;
  /** Time between rounds (default 1000 ms). */
  intervalMs?: number;
}

/** What `GET /checkpoint/key` reports about the witnesses. */
export interface WitnessStatus {
  quorum: number;
  /** Size of the checkpoint served now (null: none cosigned yet, `GET /checkpoint` answers 503). */
  cosigned_size: number | null;
  /** Leaves in the tree at the last round, or the served checkpoint's size if larger (another instance's round). */
  tree_size: number | null;
  witnesses: { name: string; verifier_key: string; url: string; cosigned_size: number | null; error: string | null }[];
}

interface WitnessState {
  /** The size this witness cosigned last, as far as the hub knows (null: not asked yet). */
  cosigned: number | null;
  error: string | null;
  /** Its last answer showed it cosigned a larger tree than this whole log: the log was rolled back. */
  rollback: boolean;
}

/** The bodies of a 409: the witness's cosigned size. */
const SIZE_ANSWER = /^(0|[1-9][0-9]{0,15})\n$/;

export class CosignedCheckpoints {
  readonly #policy: WitnessPolicy;
  readonly #parts: { store: Store; logKey: () => Promise<LogKey> };
  readonly #onError: (err: unknown) => void;
  readonly #states: WitnessState[];
  /** The newest cosigned checkpoint known: this instance's, or another's read from the store. */
  #served: CheckpointResult | undefined;
  /** The witnesses whose valid cosignatures `#served` carries. */
  #servedBy = new Set<string>();
  /** A stored note that does not carry this hub's quorum (another witness list): not read again. */
  #refused: string | undefined;
  #treeSize: number | null = null;
  /**
   * Whether a round asked the witnesses since start. Until then nothing is served, not even
   * a stored checkpoint: a log put back to an older copy of its database still holds the
   * checkpoint it served then, and only the witnesses can tell it was rolled back.
   */
  #asked = false;
  /** The last round found the log rolled back and got no quorum: nothing is served. */
  #rolledBack = false;
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;
  #closed = false;

  constructor(
    policy: WitnessPolicy,
    parts: { store: Store; logKey: () => Promise<LogKey> },
    onError: (err: unknown) => void,
  ) {
    if (!(Number.isInteger(policy.quorum) && policy.quorum >= 1 && policy.quorum <= policy.witnesses.length)) {
      throw new RangeError(`witness quorum ${policy.quorum} is not between 1 and ${policy.witnesses.length}`);
    }
    // Counted by key: one witness given twice would answer both submissions and count twice.
    const keys = new Set(policy.witnesses.map((w) => w.key.publicKey.toString("hex")));
    if (keys.size !== policy.witnesses.length) throw new RangeError("a witness key is given twice");
    this.#policy = policy;
    this.#parts = parts;
    this.#onError = onError;
    this.#states = policy.witnesses.map(() => ({ cosigned: null, error: null, rollback: false }));
  }

  /** Starts the rounds (the first at once). */
  start(): void {
    const loop = () => {
      if (this.#closed) return;
      this.#round = this.round()
        .catch((err: unknown) => this.#onError(err))
        .finally(() => {
          if (!this.#closed) this.#timer = setTimeout(loop, this.#policy.intervalMs ?? 1000);
        });
    };
    loop();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#round;
  }

  /**
   * The checkpoint to serve: the newest with a quorum of cosignatures, this instance's or the
   * stored one, read now. Every instance stores a checkpoint before it serves it, and the
   * stored one only grows, so the answer is at least as large as any checkpoint served by any
   * instance before this call (a cached read could miss one served a moment ago elsewhere).
   */
  async served(): Promise<CheckpointResult> {
    if (this.#serving()) {
      await this.refresh();
      if (this.#served !== undefined) return this.#served;
    }
    throw new ContractError(
      "UNAVAILABLE",
      `No checkpoint has the ${this.#policy.quorum} witness cosignatures this hub requires yet`,
      { reason: "witness_quorum", ...this.status() },
    );
  }

  #serving(): boolean {
    return this.#asked && !this.#rolledBack;
  }

  /**
   * Reads the stored checkpoint and makes it the known one if its tree is larger, it is signed
   * by the log key and it carries this hub's quorum of cosignatures (instances given another
   * witness list store checkpoints this one may not serve). The witnesses that cosigned it
   * have cosigned that size: their state says so.
   */
  async refresh(): Promise<void> {
    const stored = await this.#parts.store.readCosignedCheckpoint();
    if (stored === null || stored.size <= (this.#served?.size ?? -1) || stored.checkpoint === this.#refused) return;
    const key = await this.#parts.logKey();
    let root: string;
    try {
      const cp = verifyCheckpoint(stored.checkpoint, key.origin, key.publicKey);
      if (cp.size !== stored.size) throw new CheckpointError(`its note is of ${cp.size} leaves, not ${stored.size}`);
      root = cp.root.toString("hex");
    } catch (err) {
      if (!(err instanceof CheckpointError)) throw err;
      this.#refused = stored.checkpoint;
      return;
    }
    const lines = verifyCosignatures(
      stored.checkpoint,
      this.#policy.witnesses.map((w) => w.key),
    );
    if (lines.length < this.#policy.quorum) {
      this.#refused = stored.checkpoint;
      return;
    }
    if (stored.size <= (this.#served?.size ?? -1)) return;
    this.#served = { checkpoint: stored.checkpoint, size: stored.size, root };
    // Another instance's round saw the tree at least this large: the state never shows a tree smaller than the served checkpoint.
    if (this.#treeSize === null || this.#treeSize < stored.size) this.#treeSize = stored.size;
    this.#servedBy = new Set(lines.map((l) => l.name));
    this.#settle();
  }

  /**
   * A witness whose cosignature the served checkpoint carries, and that is not known to have
   * cosigned more, has cosigned that size and is in order: a late round's answer (another
   * instance had it cosign this tree first) is no fault of the witness.
   */
  #settle(): void {
    const served = this.#served;
    if (served === undefined) return;
    this.#policy.witnesses.forEach((w, i) => {
      const state = this.#states[i]!;
      if (!this.#servedBy.has(w.key.name) || (state.cosigned ?? 0) > served.size) return;
      state.cosigned = served.size;
      state.error = null;
      state.rollback = false;
    });
  }

  status(): WitnessStatus {
    return {
      quorum: this.#policy.quorum,
      cosigned_size: this.#serving() ? (this.#served?.size ?? null) : null,
      tree_size: this.#treeSize,
      witnesses: this.#policy.witnesses.map((w, i) => ({
        name: w.key.name,
        verifier_key: witnessVerifierKey(w.key),
        url: w.url,
        cosigned_size: this.#states[i]!.cosigned,
        error: this.#states[i]!.error,
      })),
    };
  }

  /**
   * One round: sign the current tree, ask every witness, and if a quorum cosigned, store the
   * checkpoint (kept only if larger than the stored one) and serve it. A tree the served
   * checkpoint already covers (this instance's or another's) is not submitted again.
   */
  async round(): Promise<void> {
    const size = await this.#parts.store.treeSize();
    this.#treeSize = size;
    await this.refresh();
    if (this.#serving() && this.#served !== undefined && this.#served.size >= size) return;
    const root = await treeRoot((ids) => this.#parts.store.readTreeNodes(ids), size);
    const note = (await this.#parts.logKey()).sign({ size, root });
    const answers = await Promise.all(this.#policy.witnesses.map((w, i) => this.#ask(w, this.#states[i]!, note, size)));
    const lines = answers.filter((a): a is VerifiedCosignature => a !== null);
    if (lines.length < this.#policy.quorum) {
      this.#asked = true;
      // Witnesses that cosigned more than the whole log hold it rolled back: serve nothing, as
      // before any quorum, rather than the checkpoint the older copy of the store kept.
      if (this.#states.some((s) => s.rollback)) this.#rolledBack = true;
      // A checkpoint of this tree or a larger one may have been taken from the store meanwhile:
      // this round came late, and the witnesses on that checkpoint are in order.
      if ((this.#served?.size ?? -1) >= size) this.#settle();
      return;
    }
    const own = { checkpoint: note + lines.map((l) => `${l.line}\n`).join(""), size, root: root.toString("hex") };
    // Stored before served: an instance that reads the store after this serves at least this.
    await this.#parts.store.saveCosignedCheckpoint(own);
    this.#asked = true;
    this.#rolledBack = false;
    if (this.#served === undefined || this.#served.size < size) {
      this.#served = own;
      this.#servedBy = new Set(lines.map((l) => l.name));
    }
  }

  /** Asks one witness to cosign `note`; a 409 teaches the size it cosigned, and the request is made again once. */
  async #ask(w: CheckpointWitness, state: WitnessState, note: string, size: number) {
    state.rollback = false;
    for (let attempt = 0; attempt < 2; attempt++) {
      const old = state.cosigned ?? 0;
      if (old > size) {
        // Instances sharing one database share the witness: another may have had it cosign a tree
        // that grew after this round read its size. Only a tree still smaller than that is a rollback.
        const now = await this.#parts.store.treeSize();
        state.rollback = now < old;
        state.error =
          now >= old
            ? `it cosigned a tree of ${old}, larger than this round's ${size}: another instance submitted the grown tree (now ${now}) meanwhile`
            : `it cosigned a tree of ${old}, larger than this log's ${now}: the log was rolled back`;
        return null;
      }
      try {
        const proof =
          old > 0 && old < size ? await proveConsistency((ids) => this.#parts.store.readTreeNodes(ids), old, size) : [];
        const answer = await w.submit(formatAddCheckpoint({ oldSize: old, proof, note }));
        if (answer.status === 409 && SIZE_ANSWER.test(answer.body)) {
          state.cosigned = Number(answer.body.trim());
          state.error = `it had cosigned ${state.cosigned}`;
          continue;
        }
        if (answer.status !== 200) {
          state.error = `it answered ${answer.status}: ${answer.body.trim().slice(0, 300)}`;
          return null;
        }
        const [cosignature] = verifyCosignatures(note + answer.body, [w.key]);
        if (cosignature === undefined) {
          state.error = "its answer carries no valid cosignature by its key";
          return null;
        }
        state.cosigned = size;
        state.error = null;
        return cosignature;
      } catch (err) {
        const why = err instanceof CheckpointError ? "its answer is malformed" : "unreachable";
        state.error = `${why}: ${(err as Error).message}`;
        return null;
      }
    }
    return null;
  }
}
