/**
 * Stands between the hub and its store so that storage faults have names (docs/reliability.md):
 * a full disk, an I/O error or an unreachable database becomes 503 UNAVAILABLE with
 * `details.reason: "storage"`, damaged pages become CORRUPTED naming the contract, and the
 * guard remembers the fault so `GET /health` says `degraded` while it lasts. Nothing here
 * retries a write: a failed call wrote nothing (each store call is one transaction), so the
 * client retries, and what was acknowledged before stays acknowledged.
 *
 * The fault ends when a write succeeds again (any call, for an unreachable database), or
 * when a health probe, a durable write of 64 KiB (an already-expired request nonce), commits,
 * tried at most once a second and not within a second of the last failure: writes resume
 * without a restart.
 */
import { randomBytes } from "node:crypto";
import type { Store } from "./Store.js";
import { type StorageFaultReason, storageCorrupted, storageErrorKind, storageUnavailable } from "./storageFault.js";

/** Store calls that write (their success proves the disk and the database take writes again). */
const WRITES = new Set([
  "appendCommits",
  "setGrant",
  "registerAccessKey",
  "revokeAccessKey",
  "useNonce",
  "saveSnapshot",
  "saveCosignedCheckpoint",
  "saveProposal",
  "addProposalSignatures",
  "withdrawProposal",
]);
/**
 * The writes whose success ends a full disk: a refused request's nonce, spent on its own
 * right after the refusal, or a grant, may still fit while every commit is refused, and
 * must not make `/health` say ok (the probe, 64 KiB, is the other way out).
 */
const ROOMY_WRITES = new Set(["appendCommits"]);
/** Store calls whose first argument is a contract id (named by CORRUPTED). */
const BY_CONTRACT = new Set([
  "getContract",
  "appendCommits",
  "readCommits",
  "readPullTexts",
  "saveSnapshot",
  "readSnapshot",
  "getCommitByHash",
  "storedHashes",
  "getCommitAt",
  "setGrant",
  "getGrant",
  "listGrants",
  "getAssets",
  "getAssetsPage",
  "getAsset",
  "getBalancesNamed",
  "listIncomingSends",
  "getProposal",
  "listProposals",
  "addProposalSignatures",
  "withdrawProposal",
]);
const GUARDED = new Set([
  ...BY_CONTRACT,
  ...WRITES,
  "listContracts",
  "getAccessKey",
  "listAccessKeys",
  "getSend",
  "getSendFiling",
  // The transparency log's reads (docs/transparency.md).
  "treeSize",
  "readTreeNodes",
  "findLeaf",
  "logKeySeed",
  "recordLogKey",
  "readCosignedCheckpoint",
  "listSnapshots",
]);

/** At most one probe a second; `/health` waits for a running probe at most this long. */
const PROBE_INTERVAL_MS = 1000;
const PROBE_WAIT_MS = 250;
/**
 * Bytes the probe writes (as 1 KiB nonces, keys and index entries besides): about a large
 * commit, since a nearly full disk may still take a tiny write (SQLite reuses WAL space)
 * while refusing every real one.
 */
const PROBE_BYTES = 64 * 1024;
/** The access key of probe nonces: not hex, so no registered key can collide with it. */
const PROBE_KEY = "storage-probe";

const guards = new WeakMap<object, StorageGuard>();

export class StorageGuard {
  /** The guarded store: the hub uses only this one. */
  readonly store: Store;
  readonly #inner: Store;
  #fault: { reason: StorageFaultReason; since: number } | null = null;
  #probing: Promise<void> | null = null;
  #lastProbe = 0;

  private constructor(inner: Store) {
    this.#inner = inner;
    const wrappers = new Map<string, unknown>();
    this.store = new Proxy(inner, {
      get: (target, prop) => {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== "function") return value;
        if (typeof prop !== "string") return value.bind(target);
        let wrapper = wrappers.get(prop);
        if (wrapper === undefined) {
          const fn = value as (...args: unknown[]) => unknown;
          wrapper = GUARDED.has(prop) ? this.#wrap(prop, fn.bind(target)) : fn.bind(target);
          wrappers.set(prop, wrapper);
        }
        return wrapper;
      },
    });
    guards.set(this.store, this);
  }

  /** The guard of `store`: the existing one when `store` is already a guarded store. */
  static of(store: Store): StorageGuard {
    return guards.get(store) ?? new StorageGuard(store);
  }

  /**
   * The storage fault in force, or null. While one lasts, a probe write (at most one a
   * second) checks whether it passed; the answer waits for it briefly, never long.
   */
  async fault(): Promise<StorageFaultReason | null> {
    if (this.#fault === null) return null;
    const now = Date.now();
    // Not within a second of the last failure: the write that just failed is the better witness.
    const settled = now - this.#fault.since >= PROBE_INTERVAL_MS;
    if (this.#probing === null && settled && now - this.#lastProbe >= PROBE_INTERVAL_MS) {
      this.#lastProbe = now;
      this.#probing = this.#probe().finally(() => {
        this.#probing = null;
      });
    }
    if (this.#probing !== null) {
      let timer: NodeJS.Timeout | undefined;
      const wait = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, PROBE_WAIT_MS);
        timer.unref();
      });
      await Promise.race([this.#probing, wait]);
      clearTimeout(timer);
    }
    return this.#fault?.reason ?? null;
  }

  async #probe(): Promise<void> {
    try {
      // Many 1 KiB nonces at once: SQLite commits them in one group transaction, and no single
      // row outgrows an index entry (PostgreSQL refuses b-tree entries beyond ~2.7 KB).
      const nonces = Array.from({ length: PROBE_BYTES / 1024 }, () => randomBytes(512).toString("hex"));
      await Promise.all(nonces.map((nonce) => this.#inner.useNonce(PROBE_KEY, nonce, 0)));
      this.#fault = null;
    } catch (err) {
      this.#noteFailure(err);
    }
  }

  #wrap(method: string, fn: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
    const fail = (args: unknown[], err: unknown): never => {
      const kind = this.#noteFailure(err);
      if (kind === null) throw err;
      if (kind === "corrupted") {
        const id = BY_CONTRACT.has(method) && typeof args[0] === "string" ? args[0] : null;
        throw storageCorrupted(id, err);
      }
      throw storageUnavailable(kind, err);
    };
    const succeeded = () => {
      const fault = this.#fault?.reason;
      if (fault === undefined) return;
      const clears = fault === "unreachable" || (fault === "disk_full" ? ROOMY_WRITES.has(method) : WRITES.has(method));
      if (clears) this.#fault = null;
    };
    return (...args: unknown[]) => {
      let result: unknown;
      try {
        result = fn(...args);
      } catch (err) {
        return fail(args, err);
      }
      if (result instanceof Promise) {
        return result.then(
          (value) => {
            succeeded();
            return value;
          },
          (err) => fail(args, err),
        );
      }
      if (isAsyncIterable(result)) return guardIteration(result, (err) => fail(args, err), succeeded);
      succeeded();
      return result;
    };
  }

  /** Records a storage fault (not damaged pages: they are one contract's, the hub stays up); returns the error's kind. */
  #noteFailure(err: unknown): ReturnType<typeof storageErrorKind> {
    const kind = storageErrorKind(err);
    if (kind !== null && kind !== "corrupted") this.#fault = { reason: kind, since: Date.now() };
    return kind;
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

async function* guardIteration(
  source: AsyncIterable<unknown>,
  fail: (err: unknown) => never,
  succeeded: () => void,
): AsyncIterable<unknown> {
  try {
    yield* source;
  } catch (err) {
    fail(err);
  }
  succeeded();
}
