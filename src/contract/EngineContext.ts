import type { Attestation, Operation } from "./Commit.js";
import type { GoverningModel } from "./ContractState.js";
import type { Limits } from "./limits.js";
import type { RuleChecker } from "./RuleChecker.js";
import type { StoredCommit } from "./StoredCommit.js";

/** A predicate result (docs/language.md). */
export interface PredicateResult {
  valid: boolean;
  gas_used: number;
  errors: string[];
  /**
   * A custom predicate the host, not the module, made false (WasmFailureCause). `timeout`
   * and `worker_error` depend on the machine, so the engine decides nothing on them (step.ts).
   */
  cause?: string;
}

/**
 * Runs custom WASM predicates; the engine passes the module bytes it found at
 * `/_code/custom/<name>.wasm` (a copy the runner may keep), and for a big module their SHA-256
 * in hex, which the engine computed once for all its evaluations (customModuleMemo.ts), so
 * the runner need not hash megabytes again to find its compilation.
 */
export type WasmRunner = (moduleBytes: Uint8Array, input: unknown, moduleDigest?: string) => Promise<PredicateResult>;

/**
 * An asset effect the engine accepted locally; the hub checks the cross-contract part
 * (balances, SEND existence, receipt) inside the write transaction (docs/assets.md).
 */
export interface AssetOperation {
  /** Position of the operation in the commit's data. */
  opIndex: number;
  op: Operation;
}

/**
 * Cross-contract facts the engine cannot know alone. The hub implements it over its store;
 * a working copy implements what it can. Each check throws ContractError VALIDATION_FAILED
 * with `details.rpc_code` on failure. `null` hooks (the default) accept every asset operation
 * that is well formed, which is what a contract-local replay needs (docs/language.md: replay
 * does not re-validate cross-contract facts).
 */
export interface AssetHooks {
  /** Called in operation order for each create/send/recv/repost of a commit, before it is accepted. */
  check(contractId: string, commitHash: string, ops: AssetOperation[]): Promise<void> | void;
}

/** What the engine needs from its caller to decide one commit. No I/O happens in the engine itself. */
export interface EngineContext {
  /** Receipt time of the commit, integer seconds; replay passes the stored time. */
  timestamp: number;
  limits?: Limits;
  /** Position of a commit of this contract by hash, or null (hash-anchored rules). */
  commitIndex?(hash: string): Promise<number | null> | number | null;
  /** The contract's stored log from index 0, in order (MODEL replay, hash anchors). */
  readLog?(): AsyncIterable<StoredCommit> | Iterable<StoredCommit>;
  assets?: AssetHooks | null;
  wasm?: WasmRunner | null;
  /** Runs the model checks of a commit (default: on this thread); the hub runs them off its event loop. */
  checkRules?: RuleChecker;
  /** Compiles a model text (default: compileGoverningModel); the hub admits and charges big ones to the caller. */
  compileModel?: (text: string, limits: Limits) => GoverningModel | Promise<GoverningModel>;
  /**
   * Called between slices of long replays, and between groups of transitions of one decision
   * (a wide model); may wait (to let other work run) or throw to stop.
   */
  tick?: () => Promise<void> | void;
  /**
   * Signer keys already verified for this commit (hex), e.g. in parallel for a whole push.
   * When absent the engine verifies the signatures itself.
   */
  verifiedSigners?: string[];
  /**
   * The commit's attestations, already verified for this commit (a proposal's, once for both
   * of its judgements). When absent the engine verifies them itself.
   */
  verifiedAttestations?: Attestation[];
  /** Skip signature and attestation verification (replay of the hub's own trusted store). */
  trusted?: boolean;
  /**
   * The commit is one of a log already accepted somewhere (`verify`, a clone or pull of a
   * working copy); a trusted replay is one too. A refusal would call that log damaged, so a
   * refusal that rests on a custom predicate the host did not finish is UNAVAILABLE instead.
   */
  replay?: boolean;
  /**
   * The commit passed in is already what `validateCommitShape` returned for this contract and
   * these limits (a push validates its whole batch before taking the lock): the engine skips
   * the structural re-check and the hash recomputation. Never set it for untrusted input.
   */
  prevalidated?: boolean;
  /**
   * Verify a commit's signatures on the verification workers too. Off by default: a lone
   * caller awaits the result anyway and the hop costs more CPU than it moves (measured in
   * docs/benchmarks.md, "The write path, third round"). The hub turns it on for a push's
   * commits whose signatures its batch did not verify in advance.
   */
  verifyOnThreadpool?: boolean;
  /**
   * Decide a proposal (a commit still collecting signatures): required signature predicates
   * that fail only for want of signatures count as satisfiable (see step.ts).
   */
  optimisticSignatures?: boolean;
}
