import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import { siblingModule, startWorker } from "../lib/startWorker.js";
import { publicKeyCache } from "./keys.js";

/** One record as the pool packs it: public key 32 | message 32 | signature 64 bytes. */
export const RECORD_BYTES = 128;
/** Records per message to a worker: enough to make the hop cheap, few enough to start early. */
const CHUNK_RECORDS = 64;

interface Batch {
  records: Buffer;
  count: number;
  settle: ((ok: boolean | Error) => void)[];
}

interface Lane {
  worker: Worker;
  /** Records sent and not yet answered; the lane holds the process open while any are. */
  pending: number;
  batches: Map<number, Batch>;
}

/**
 * Ed25519 verification of 32-byte messages (commit hashes) on worker threads, in batches.
 * A push hands hundreds of signatures over at once: sent one by one to the libuv threadpool,
 * each costs the event loop a job, a callback and a promise, about a third of what the
 * verification itself costs. Here the event loop packs 128 bytes per signature and posts one
 * message per 64, to the least busy of one worker per core.
 *
 * Keys are checked against the weak-key list (and cached) on the calling thread, exactly as
 * `verify` does, before a record is packed. A worker that fails rejects the signatures it
 * held; callers treat that as "not verified in advance" and verify in order instead.
 */
export class VerifyPool {
  readonly size: number;
  /** Signatures handed to the pool since it was made (they cost the workers a verification each). */
  submitted = 0;
  readonly #entry: URL;
  readonly #lanes: (Lane | null)[];
  #open: Batch | null = null;
  #nextId = 1;

  constructor(size = availableParallelism(), entry = siblingModule("verifyWorker", import.meta.url)) {
    this.size = Math.max(1, size);
    this.#entry = entry;
    this.#lanes = Array.from({ length: this.size }, () => null);
  }

  /**
   * True when `signatureHex` (128 hex) is the signature by `keyHex` (64 hex) of the 32 bytes
   * of `hashHex` (64 hex). The hex must be well formed (callers pass shape-checked commits);
   * a weak key rejects with VALIDATION_FAILED `weak_key`, as `verify` does.
   */
  verifyHash(keyHex: string, hashHex: string, signatureHex: string): Promise<boolean> {
    try {
      publicKeyCache.get(keyHex);
    } catch (err) {
      return Promise.reject(err);
    }
    this.submitted++;
    const batch = this.#batch();
    const o = batch.count * RECORD_BYTES;
    batch.records.write(keyHex, o, 32, "hex");
    batch.records.write(hashHex, o + 32, 32, "hex");
    batch.records.write(signatureHex, o + 64, 64, "hex");
    batch.count++;
    const verdict = new Promise<boolean>((resolve, reject) =>
      batch.settle.push((ok) => (ok instanceof Error ? reject(ok) : resolve(ok))),
    );
    if (batch.count === CHUNK_RECORDS) this.#flush();
    return verdict;
  }

  /**
   * Ends the workers; every signature not answered yet rejects, at once. Not left to the
   * workers' exit events: under load a terminated worker's exit could come after the
   * caller's last reference was gone, and its signatures then never settled.
   */
  async close(): Promise<void> {
    const closed = new Error("verification worker exited: the pool was closed");
    const open = this.#open;
    this.#open = null;
    for (const settle of open?.settle ?? []) settle(closed);
    await Promise.all(
      this.#lanes.map((lane, i) => {
        this.#lanes[i] = null;
        if (lane === null || lane === undefined) return undefined;
        for (const batch of lane.batches.values()) for (const settle of batch.settle) settle(closed);
        lane.batches.clear();
        lane.pending = 0;
        // Held until it has exited, so the caller's await sees the end.
        lane.worker.ref();
        return lane.worker.terminate();
      }),
    );
  }

  #batch(): Batch {
    if (this.#open === null) {
      this.#open = { records: Buffer.allocUnsafe(CHUNK_RECORDS * RECORD_BYTES), count: 0, settle: [] };
      // Whatever a synchronous loop of callers packed goes out before the loop's next turn.
      queueMicrotask(() => this.#flush());
    }
    return this.#open;
  }

  #flush(): void {
    const batch = this.#open;
    if (batch === null || batch.count === 0) return;
    this.#open = null;
    const lane = this.#leastBusy();
    const id = this.#nextId++;
    lane.batches.set(id, batch);
    if (lane.pending === 0) lane.worker.ref();
    lane.pending += batch.count;
    const records = new Uint8Array(batch.records.buffer, batch.records.byteOffset, batch.count * RECORD_BYTES);
    lane.worker.postMessage({ id, records });
  }

  #leastBusy(): Lane {
    let best = -1;
    for (let i = 0; i < this.#lanes.length; i++) {
      const lane = this.#lanes[i];
      if (lane === null || lane === undefined) {
        best = i;
        break;
      }
      if (best < 0 || lane.pending < this.#lanes[best]!.pending) best = i;
    }
    return this.#lanes[best] ?? this.#start(best);
  }

  #start(index: number): Lane {
    const worker = startWorker(this.#entry);
    worker.unref();
    const lane: Lane = { worker, pending: 0, batches: new Map() };
    worker.on("message", ({ id, out }: { id: number; out: Uint8Array }) => {
      const batch = lane.batches.get(id);
      if (batch === undefined) return;
      lane.batches.delete(id);
      lane.pending -= batch.count;
      if (lane.pending === 0) worker.unref();
      for (let i = 0; i < batch.count; i++) batch.settle[i]!(out[i] === 1);
    });
    const fail = (err: Error) => {
      if (this.#lanes[index] === lane) this.#lanes[index] = null;
      for (const batch of lane.batches.values()) for (const settle of batch.settle) settle(err);
      lane.batches.clear();
      lane.pending = 0;
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`verification worker exited with code ${code}`)));
    this.#lanes[index] = lane;
    return lane;
  }
}

/** The process-wide pool used for the signatures of pushes. */
export const verifyPool = new VerifyPool();
