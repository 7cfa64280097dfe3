import type { RuleChecker } from "../contract/checkRules.js";
import type { AssetHooks, EngineContext, WasmRunner } from "../contract/EngineContext.js";
import type { Limits } from "../contract/limits.js";
import type { StoredCommit } from "../contract/StoredCommit.js";
import type { Store } from "../store/Store.js";

/** What the hub passes to the engine for every commit of a contract. */
export interface EngineSettings {
  limits?: Limits;
  wasm?: WasmRunner | null;
  assets?: AssetHooks | null;
  /** Where model checks run (the hub: its worker pool, charged to the caller). */
  checkRules?: RuleChecker;
  /** How model texts are compiled (the hub: admitted by and charged to the caller's work budget). */
  compileModel?: EngineContext["compileModel"];
  /** Yields between the steps of long replays (see src/hub/heavy/TimeSlice.ts). */
  tick?: () => Promise<void> | void;
}

/**
 * The engine context for the next commit of `contractId`: the log is the stored prefix
 * (bounded by `storedLength`, the length validated against) followed by `pending`, the
 * commits accepted earlier in the same batch and not stored yet.
 */
export function engineContext(
  store: Store,
  contractId: string,
  storedLength: number,
  pending: readonly StoredCommit[],
  settings: EngineSettings,
  extra: Pick<EngineContext, "timestamp" | "verifiedSigners" | "trusted" | "prevalidated" | "verifyOnThreadpool">,
): EngineContext {
  // Object.assign, not `{ ...settings, timestamp, … }`: on Node 20 a spread followed by more
  // fields takes V8's slow path, about 7 µs here against 0.3, once per commit or request
  // (docs/benchmarks.md, thirteenth round).
  const ctx: EngineContext = Object.assign({}, settings, {
    timestamp: extra.timestamp,
    // Off unless the caller asks (a push, for a signature its batch did not verify early): a
    // lone commit's signature verifies on the event loop, which costs less than the hop to a
    // worker now that the fsyncs run on the writer thread (docs/benchmarks.md, "third round").
    verifyOnThreadpool: extra.verifyOnThreadpool === true,
    async commitIndex(hash: string) {
      const inBatch = pending.find((c) => c.hash === hash);
      if (inBatch !== undefined) return inBatch.index;
      const stored = await store.getCommitByHash(contractId, hash);
      return stored !== null && stored.index < storedLength ? stored.index : null;
    },
    async *readLog() {
      yield* store.readCommits(contractId, 0, storedLength);
      yield* pending;
    },
  });
  if (extra.verifiedSigners !== undefined) ctx.verifiedSigners = extra.verifiedSigners;
  if (extra.trusted) ctx.trusted = true;
  if (extra.prevalidated) ctx.prevalidated = true;
  return ctx;
}
