import { acceptCommit, applyDelta } from "./acceptCommit.js";
import { acceptGenesis } from "./acceptGenesis.js";
import { ContractError, isContractError } from "./ContractError.js";
import type { ContractState } from "./ContractState.js";
import type { RuleChecker } from "./checkRules.js";
import type { EngineContext, WasmRunner } from "./EngineContext.js";
import type { Limits } from "./limits.js";
import { type StoredCommit, toWireCommit } from "./StoredCommit.js";

export interface ReplayOptions {
  /**
   * The hub's own store: take the stored signers instead of verifying signatures again.
   * Untrusted replay (verify, a cloned working copy) checks every hash, link and signature.
   */
  trusted?: boolean;
  wasm?: WasmRunner | null;
  limits?: Limits;
  /** A fresh read of the log from index 0 (for MODEL commits); otherwise the replayed commits are kept in memory. */
  readLog?: () => AsyncIterable<StoredCommit> | Iterable<StoredCommit>;
  /** Runs the model checks (default: on this thread). */
  checkRules?: RuleChecker;
  /** Compiles model texts (default: compileGoverningModel; the hub's compiles in slices). */
  compileModel?: EngineContext["compileModel"];
  /** Called before each commit: a long replay yields here (and may be stopped by a throw). */
  tick?: () => Promise<void> | void;
  /** Sees the state after each commit (e.g. `verify` comparing a stored snapshot); must not change it. */
  onState?: (state: ContractState) => void;
}

function corrupted(c: StoredCommit | undefined, index: number, why: string, cause?: unknown): ContractError {
  const details: Record<string, unknown> = { reason: "corrupted", index };
  if (c !== undefined) details.hash = c.hash;
  if (isContractError(cause)) details.cause = { code: cause.code, ...(cause.details ?? {}) };
  return new ContractError("CORRUPTED", `Contract log is damaged at commit ${index}: ${why}`, details, { cause });
}

/**
 * Derives a contract's state by replaying its stored log from genesis (docs/language.md), with
 * each commit's stored receipt time. Any failure is CORRUPTED naming the first damaged commit:
 * a recomputed hash that differs, a broken parent link, a signature that does not verify, a
 * signer list that differs from the stored one, or a commit the model refuses.
 */
export async function replayLog(
  contractId: string,
  commits: AsyncIterable<StoredCommit> | Iterable<StoredCommit>,
  opts: ReplayOptions = {},
): Promise<ContractState> {
  let state: ContractState | undefined;
  const seen: StoredCommit[] = [];
  const keep = opts.readLog === undefined;
  const byHash = new Map<string, number>();
  let index = 0;
  for await (const c of commits) {
    if (c.index !== index) throw corrupted(c, index, `expected index ${index}, found ${c.index}`);
    await opts.tick?.();
    const ctx: EngineContext = {
      timestamp: c.timestamp,
      trusted: opts.trusted === true,
      replay: true,
      wasm: opts.wasm ?? null,
      commitIndex: (hash) => byHash.get(hash) ?? null,
      readLog: opts.readLog ?? (() => seen),
      ...(opts.limits ? { limits: opts.limits } : {}),
      ...(opts.checkRules ? { checkRules: opts.checkRules } : {}),
      ...(opts.compileModel ? { compileModel: opts.compileModel } : {}),
      ...(opts.tick ? { tick: opts.tick } : {}),
      ...(opts.trusted ? { verifiedSigners: c.signers } : {}),
    };
    try {
      let stored: StoredCommit;
      if (state === undefined) {
        ({ state, stored } = await acceptGenesis(contractId, toWireCommit(c), ctx));
      } else {
        const accepted = await acceptCommit(state, toWireCommit(c), ctx);
        applyDelta(state, accepted.delta);
        stored = accepted.stored;
      }
      if (!sameList(stored.signers, c.signers)) throw corrupted(c, index, "stored signers differ from the signatures");
    } catch (err) {
      // UNAVAILABLE (a hub that cannot run a custom predicate) says nothing about the log, and
      // a replay stopped by its tick (nobody wants it any more) is not damage either.
      if (
        isContractError(err, "CORRUPTED") ||
        isContractError(err, "UNAVAILABLE") ||
        (err instanceof Error && err.name === "WorkStopped")
      )
        throw err;
      const why = isContractError(err) ? err.message : String(err);
      throw corrupted(c, index, why, err);
    }
    byHash.set(c.hash, index);
    if (keep) seen.push(c);
    opts.onState?.(state);
    index++;
  }
  if (state === undefined) throw corrupted(undefined, 0, "the log is empty");
  return state;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
