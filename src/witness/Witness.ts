/**
 * A transparency-log witness (docs/transparency.md), the C2SP tlog-witness rules without the
 * transport: for each log it trusts (an origin and the log's public key) it cosigns a
 * checkpoint only when the log's signature verifies and the checkpoint is consistent with
 * the newest one it cosigned before for that origin, which it keeps durably (WitnessRecords).
 * A log that offers a smaller tree (rollback) or a tree that does not extend the cosigned one
 * (fork) is refused, reported through `onRefusal` and recorded as evidence.
 *
 * Check and update happen in one synchronous step (no await between reading the record and
 * writing the new one), so two requests for one log cannot interleave and roll it back.
 */
import type { KeyObject } from "node:crypto";
import { privateKeyFromSeed, publicKeyFromSeed } from "../contract/keys.js";
import { type AddCheckpointRequest, parseAddCheckpoint } from "../tlog/addCheckpointBody.js";
import {
  type Checkpoint,
  CheckpointError,
  keyId,
  parseCheckpointBody,
  splitNote,
  verifyCheckpoint,
} from "../tlog/checkpoint.js";
import { cosign, type WitnessKey, witnessVerifierKey } from "../tlog/cosignature.js";
import { EMPTY_ROOT, verifyConsistency } from "../tlog/merkle.js";
import type { WitnessRecords } from "./WitnessRecords.js";

/** A log the witness follows: its origin and ed25519 public key. */
export interface TrustedLog {
  origin: string;
  publicKey: Buffer;
}

/** Why a checkpoint was not cosigned, as a tlog-witness status. */
export type AddAnswer =
  | { status: 200; lines: string; checkpoint: Checkpoint }
  | { status: 409; knownSize: number; message: string }
  | { status: 400 | 403 | 404 | 422; message: string };

/** A refusal that says the log misbehaved: it rolled back or forked. */
export interface Refusal {
  origin: string;
  check: "rollback" | "fork";
  cosigned_size: number;
  offered_size: number;
  message: string;
}

export interface WitnessOptions {
  /** The witness's key name (its cosignatures' name). */
  name: string;
  /** The 32-byte ed25519 seed of the witness key. */
  seed: Uint8Array;
  logs: readonly TrustedLog[];
  records: WitnessRecords;
  /** Seconds since the epoch (default: the clock). */
  now?: () => number;
  onRefusal?: (r: Refusal) => void;
}

export class Witness {
  readonly key: WitnessKey;
  readonly #private: KeyObject;
  readonly #logs: ReadonlyMap<string, TrustedLog>;
  readonly #records: WitnessRecords;
  readonly #now: () => number;
  readonly #onRefusal: (r: Refusal) => void;

  constructor(o: WitnessOptions) {
    this.key = { name: o.name, publicKey: publicKeyFromSeed(o.seed) };
    this.#private = privateKeyFromSeed(o.seed);
    this.#logs = new Map(o.logs.map((l) => [l.origin, l]));
    this.#records = o.records;
    this.#now = o.now ?? (() => Math.floor(Date.now() / 1000));
    this.#onRefusal = o.onRefusal ?? (() => {});
  }

  /** The verifier key clients and hubs pin. */
  verifierKey(): string {
    return witnessVerifierKey(this.key);
  }

  /** The size of the newest checkpoint cosigned for `origin` (0: none). */
  cosignedSize(origin: string): number {
    return this.#records.get(origin)?.size ?? 0;
  }

  /** The newest cosigned checkpoint of the log whose origin hashes to `hash` (the monitoring route). */
  cosignedCheckpoint(hash: string): string | undefined {
    return this.#records.byOriginHash(hash)?.checkpoint;
  }

  /** `add` of an add-checkpoint request body; a malformed body is 400. */
  addText(text: string): AddAnswer {
    let request: AddCheckpointRequest;
    try {
      request = parseAddCheckpoint(text);
    } catch (err) {
      if (err instanceof RangeError) return { status: 400, message: err.message };
      throw err;
    }
    return this.add(request);
  }

  /** Checks a checkpoint submitted with a consistency proof from `oldSize`, and cosigns it. */
  add(req: AddCheckpointRequest): AddAnswer {
    let body: string;
    let cp: Checkpoint;
    try {
      body = splitNote(req.note).body;
      cp = parseCheckpointBody(body);
    } catch (err) {
      if (err instanceof CheckpointError) return { status: 400, message: err.message };
      throw err;
    }
    const log = this.#logs.get(cp.origin);
    if (log === undefined) return { status: 404, message: `unknown log ${JSON.stringify(cp.origin)}` };
    try {
      verifyCheckpoint(req.note, log.origin, log.publicKey);
    } catch (err) {
      if (err instanceof CheckpointError) return { status: 403, message: err.message };
      throw err;
    }
    const record = this.#records.get(cp.origin);
    const known = record?.size ?? 0;
    const refuse = (check: Refusal["check"], answer: AddAnswer & { message: string }): AddAnswer => {
      const refusal = {
        origin: cp.origin,
        check,
        cosigned_size: known,
        offered_size: cp.size,
        message: answer.message,
      };
      this.#onRefusal(refusal);
      this.#records.noteRefusal({ ...refusal, at: new Date().toISOString(), old_size: req.oldSize, note: req.note });
      return answer;
    };
    if (cp.size < known) {
      const message = `log ${cp.origin} offers a tree of ${cp.size}, smaller than the ${known} cosigned`;
      // The status is the protocol's (an old size beyond the checkpoint is malformed); the refusal is a rollback either way.
      return refuse(
        "rollback",
        req.oldSize > cp.size ? { status: 400, message } : { status: 409, knownSize: known, message },
      );
    }
    if (req.oldSize > cp.size) {
      return { status: 400, message: `old size ${req.oldSize} is larger than the checkpoint's ${cp.size}` };
    }
    if (req.oldSize !== known) {
      return { status: 409, knownSize: known, message: `old size ${req.oldSize} is not the cosigned size ${known}` };
    }
    if (cp.size === 0 && !cp.root.equals(EMPTY_ROOT)) {
      return { status: 422, message: "a checkpoint of size 0 must have the empty tree's root" };
    }
    if (known === 0) {
      if (req.proof.length > 0) return { status: 422, message: "a proof from the empty tree must be empty" };
    } else if (cp.size === known && cp.root.equals(Buffer.from(record!.root, "base64")) && req.proof.length > 0) {
      // The cosigned checkpoint itself with proof lines: anyone can repost the log's public
      // checkpoint with made-up lines, so this says nothing about the log. The proof between
      // equal sizes is empty and this one does not verify (422, as tlog-witness answers any
      // bad proof), but it is no fork: nothing is recorded.
      return { status: 422, message: `a consistency proof from ${known} to the same size must be empty` };
    } else {
      const knownRoot = Buffer.from(record!.root, "base64");
      if (!verifyConsistency(known, cp.size, knownRoot, cp.root, req.proof)) {
        return refuse("fork", {
          status: 422,
          message:
            cp.size === known
              ? `log ${cp.origin} offers another root for the cosigned size ${known}`
              : `log ${cp.origin}'s tree of ${cp.size} does not extend the tree of ${known} cosigned (the consistency proof fails)`,
        });
      }
    }
    const lines = cosign(body, this.key, this.#private, this.#now());
    // Keep only the log's own signature with ours: other witnesses' lines are not ours to vouch for.
    const logLine = req.note.split("\n").find((l) => this.#isLogSignature(l, log));
    this.#records.put({
      origin: cp.origin,
      size: cp.size,
      root: cp.root.toString("base64"),
      checkpoint: `${body}\n${logLine}\n${lines}`,
    });
    return { status: 200, lines, checkpoint: cp };
  }

  #isLogSignature(line: string, log: TrustedLog): boolean {
    const prefix = `\u2014 ${log.origin} `;
    if (!line.startsWith(prefix)) return false;
    return Buffer.from(line.slice(prefix.length), "base64").subarray(0, 4).equals(keyId(log.origin, log.publicKey));
  }
}
