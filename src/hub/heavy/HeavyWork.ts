import { isBigAttestations, prepareAttestationHash } from "../../contract/attestationHashInSlices.js";
import { isContractError } from "../../contract/ContractError.js";
import type { GoverningModel } from "../../contract/ContractState.js";
import { checkRule, knownTrue, rememberTrue, truthKey } from "../../contract/checkRule.js";
import type { RuleCheck, RuleChecker } from "../../contract/checkRules.js";
import { isBigCommitData, prepareCommitHash } from "../../contract/commitHashInSlices.js";
import { compileGoverningModelSliced } from "../../contract/compileGoverningModel.js";
import { DEFAULT_LIMITS, type Limits } from "../../contract/limits.js";
import { parseModelSliced } from "../../contract/modelParseMemo.js";
import { parseRulesSliced } from "../../contract/ruleParseMemo.js";
import { normalizeOperations } from "../../contract/validateCommitShape.js";
import { type keyedWasmValueCheck, rememberWasmValue } from "../../contract/wasmValueMemo.js";
import type { EngineSettings } from "../engineContext.js";
import type { Caller } from "../HubApi.js";
import { bigModelTexts } from "./bigModelTexts.js";
import { bigRuleTexts } from "./bigRuleTexts.js";
import { bigWasmValues } from "./bigWasmValues.js";
import type { CheckRulesPayload } from "./checkRulesTask.js";
import { TimeSlice, yieldSometimes } from "./TimeSlice.js";
import { WorkBudget } from "./WorkBudget.js";
import { WorkerPool, workMsOf } from "./WorkerPool.js";

export interface HeavyWorkOptions {
  /** The pool model checks run on (default: one shared by every hub of the process, sized to the cores). */
  pool?: WorkerPool;
  /** Expensive work per caller, CPU-milliseconds a minute (default 5,000; 0 = unlimited). */
  workBudgetMs?: number;
  /** Visits a request's checks may spend on the event loop before they move to the pool (default 100,000). */
  inlineVisits?: number;
  now?: () => number;
}

let sharedPool: WorkerPool | undefined;

const NONE: unknown[] = [];

/** Whether a commit's attestations (as received) weigh enough to hash in slices. */
const bigAttestations = (c: unknown) =>
  isBigAttestations((c as { head?: { attestations?: unknown } } | null)?.head?.attestations);

/** The commits (as received) whose values or attestations weigh enough to hash in slices; NONE, not a new array, when none does. */
function bigCommits(commits: readonly unknown[]): unknown[] {
  let big = NONE;
  for (const c of commits) {
    if (!isBigCommitData((c as { data?: unknown } | null)?.data) && !bigAttestations(c)) continue;
    if (big === NONE) big = [];
    big.push(c);
  }
  return big;
}

/**
 * Hashes the signed message of each attestation of `commit` (as received), for its signature
 * check to find; a list the shape check refuses (too long, an attestation not an object or
 * without a string claim) is left to it.
 */
async function prehashAttestations(
  contractId: string,
  parent: string | null,
  commit: unknown,
  limits: Limits,
  tick: () => Promise<void> | void,
): Promise<void> {
  const list = (commit as { head: { attestations: unknown[] } }).head.attestations;
  if (list.length > limits.attestationsPerCommit) return;
  for (const a of list) {
    const { claim, value } = (a ?? {}) as { claim?: unknown; value?: unknown };
    if (typeof claim !== "string" || value === undefined) continue;
    await prepareAttestationHash({ contract_id: contractId, parent, claim, value }, tick);
  }
}

/** Model text length past which compiling it counts as expensive work (admitted by the budget). */
const BIG_MODEL = 64 * 1024;

/** Who pays for a piece of work: an identity, an address, or nobody (the hub's own replays). */
export function workKey(caller: Caller): string {
  if (caller.identity !== null) return caller.identity;
  return `ip:${caller.address ?? "unknown"}`;
}

/**
 * Where the hub's expensive work runs and who pays for it: model checks go to a worker pool
 * (after a short attempt on the event loop, cheaper than the round trip for the small checks
 * most commits carry), replays and long pulls run in yielding slices, and each caller's
 * time is charged to its WorkBudget.
 */
export class HeavyWork {
  readonly budget: WorkBudget;
  readonly #pool: WorkerPool | undefined;
  readonly #inlineVisits: number;

  constructor(options: HeavyWorkOptions = {}) {
    this.budget = new WorkBudget(options.workBudgetMs ?? 5_000, options.now);
    this.#pool = options.pool;
    this.#inlineVisits = options.inlineVisits ?? 100_000;
  }

  get pool(): WorkerPool {
    if (this.#pool !== undefined) return this.#pool;
    sharedPool ??= new WorkerPool();
    return sharedPool;
  }

  /** Refuses `caller` with 429 (`work_budget`) while its allowance is spent. */
  admit(caller: Caller | null): void {
    if (caller !== null) this.budget.admit(workKey(caller));
  }

  /** Charges `ms` of work to `caller` (nothing for the hub's own work). */
  charge(caller: Caller | null, ms: number): void {
    if (caller !== null) this.budget.charge(workKey(caller), ms);
  }

  /** A slicer for `caller`'s long work; its time is charged by `done`. */
  slice(caller: Caller | null, stopped?: () => boolean): TimeSlice & { done(): void } {
    const slice = new TimeSlice(stopped) as TimeSlice & { done(): void };
    slice.done = () => this.charge(caller, slice.finish());
    return slice;
  }

  /**
   * The engine hooks of one request of `caller`: its model checks and model compiles. Whether
   * the caller may spend is decided by its allowance when the request began (its own charges
   * along the way do not refuse it half-way); the refusal, if any, comes at the request's
   * first expensive step, so cheap requests of a caller out of allowance still go through.
   */
  forRequest(caller: Caller): Required<Pick<EngineSettings, "checkRules" | "compileModel" | "tick">> {
    let refusal: unknown = null;
    try {
      this.admit(caller);
    } catch (err) {
      refusal = err;
    }
    const admit = () => {
      if (refusal !== null) throw refusal;
    };
    return {
      checkRules: this.#checker(caller, admit),
      compileModel: this.#compiler(caller, admit),
      tick: this.#ticker(caller, admit),
    };
  }

  /**
   * The tick of one request's long engine work: the replay of the log through a new model
   * (MODEL commits, hash-anchored rules) and the decision of a commit on a wide model. Those
   * ran in the hub's own uncharged slices, so a writer of a long contract could alternate two
   * models, each MODEL commit replaying the whole log again for free. Now the first tick asks
   * for the caller's allowance (429 `work_budget` when it was spent as the request began), and
   * the time since the previous tick (or since the request's engine work began) is charged to
   * it. Ordinary commits never tick, so they are neither charged nor refused.
   */
  /**
   * The same tick for `caller`'s long engine work outside a commit: reading proposals, whose
   * `missing` is recomputed from the state on each read, on a wide model. Admitted at its
   * first call, like a request's engine ticks, so a cheap read never asks.
   */
  ticker(caller: Caller): () => Promise<void> {
    return this.#ticker(caller, () => this.admit(caller));
  }

  #ticker(caller: Caller, admit: () => void): () => Promise<void> {
    const slice = new TimeSlice();
    let admitted = false;
    return async () => {
      if (!admitted) {
        admit();
        admitted = true;
      }
      this.charge(caller, slice.finish());
      await slice.tick();
      slice.begin();
    };
  }

  /**
   * Parses the big model and rule texts of `commits` (as received) in slices charged to
   * `caller`, so that the synchronous syntax checks of their shape, the compile and the rules'
   * decisions find them parsed (modelParseMemo.ts, ruleParseMemo.ts) instead of spending
   * hundreds of milliseconds in one go (a rule text is one slice's piece at most). A text over
   * 64 KiB is admitted by the caller's budget first, as its compile would be. Big `.wasm`
   * values are validated on the worker pool first, for the same reason. With `contractId`, a
   * commit whose values are big (isBigCommitData) is hashed in slices too, last, so its shape
   * check finds the hash (commitHashInSlices.ts): canonical JSON and SHA-256 of a 15 MB value
   * held the loop 115 ms in one piece.
   */
  /*
   * Undefined, not a promise, when `commits` hold nothing to parse first: a push calls this for
   * each commit, and an await per commit would send its signatures to the verification workers
   * one message per commit (see sliceIsDue).
   */
  preparse(
    caller: Caller | null,
    commits: readonly unknown[],
    limits: Limits = DEFAULT_LIMITS,
    contractId?: string,
  ): Promise<void> | undefined {
    const values = commits.flatMap((c) => bigWasmValues(c));
    const texts = commits.flatMap((c) => bigModelTexts(c, limits.modelTextBytes));
    const rules = commits.flatMap((c) => bigRuleTexts(c, limits.ruleTextBytes));
    const big = contractId === undefined ? NONE : bigCommits(commits);
    if (values.length === 0 && texts.length === 0 && rules.length === 0 && big.length === 0) return undefined;
    return this.#preparse(caller, values, texts, rules).then(() => this.#prehash(caller, contractId!, big, limits));
  }

  /**
   * Hashes the big commits of `commits` (as received) in slices charged to `caller`, so that
   * their shape check finds the hash; undefined, not a promise, when none is big. For a commit
   * whose parent is known only under the contract's lock: the field form of a single commit
   * on the head, which the hub builds there.
   */
  prehash(
    caller: Caller | null,
    contractId: string,
    commits: readonly unknown[],
    limits: Limits = DEFAULT_LIMITS,
  ): Promise<void> | undefined {
    const big = bigCommits(commits);
    return big.length === 0 ? undefined : this.#prehash(caller, contractId, big, limits);
  }

  /**
   * Hashes each of `commits` (as received) in slices charged to `caller`: its values, and the
   * signed message of each attestation when they are big (attestationHashInSlices.ts). A commit
   * whose operations or parent the shape check would refuse is left to it: it refuses before the hash.
   */
  async #prehash(caller: Caller | null, contractId: string, commits: unknown[], limits: Limits): Promise<void> {
    if (commits.length === 0) return;
    this.admit(caller);
    const slice = this.slice(caller);
    try {
      for (const c of commits) {
        const { parent, data } = c as { parent?: unknown; data?: unknown };
        if (parent !== null && typeof parent !== "string") continue;
        if (bigAttestations(c)) await prehashAttestations(contractId, parent, c, limits, slice.tick);
        if (!isBigCommitData(data)) continue;
        let ops: ReturnType<typeof normalizeOperations>;
        try {
          ops = normalizeOperations(data, limits);
        } catch {
          continue;
        }
        await prepareCommitHash(contractId, parent, ops, slice.tick);
      }
    } finally {
      slice.done();
    }
  }

  async #preparse(caller: Caller | null, values: string[], texts: string[], rules: string[]): Promise<void> {
    await this.#prevalidateWasm(caller, values);
    if (texts.length === 0 && rules.length === 0) return;
    if (texts.some((t) => t.length > BIG_MODEL)) this.admit(caller);
    const slice = this.slice(caller);
    try {
      for (const text of texts) await parseModelSliced(text, slice.tick);
      await parseRulesSliced(rules, slice.tick);
    } finally {
      slice.done();
    }
  }

  /**
   * Checks the big `.wasm` values of `commits` (as received) on the worker pool, one after
   * another, so that the synchronous check of the commit's shape finds each outcome
   * remembered (wasmValueMemo.ts) instead of holding the event loop for `WebAssembly.validate`
   * (most of a second for an 11 MB module). The worker also computes the value's digest, the
   * memo's key, so the event loop hashes it only once, in the shape check. The caller's
   * budget admits the work first and pays for the workers' time. A value whose check failed
   * on the pool (a lost worker) is left to the shape check, which validates it inline: slow,
   * but the same answer. Values are not deduplicated: a Set of big strings hashes them by
   * length alone, and comparing many of one length costs more than checking them again.
   */
  async #prevalidateWasm(caller: Caller | null, values: readonly string[]): Promise<void> {
    if (values.length === 0) return;
    this.admit(caller);
    for (const value of values) {
      try {
        const { ms, result } = await this.pool.run<ReturnType<typeof keyedWasmValueCheck>>("checkWasmValue", value);
        this.charge(caller, ms);
        rememberWasmValue(result);
      } catch (err) {
        this.charge(caller, workMsOf(err));
      }
    }
  }

  /** The hub's own model checks (replays of its store): uncharged, each call with the whole budget. */
  ownChecker(): RuleChecker {
    return this.#checker(null, () => {});
  }

  /** The hub's own model compiles (replays of its store): uncharged, in slices like the replay. */
  ownCompiler(): (text: string, limits: Limits) => Promise<GoverningModel> {
    return (text, limits) => compileGoverningModelSliced(text, limits, yieldSometimes);
  }

  /**
   * Compiling is linear in the model text but takes most of a second for 10^5 transitions, so
   * it runs on the event loop in slices that yield (a worker would not help: its result, a
   * graph of objects, costs as much to copy back as to build). A big model is admitted by the
   * caller's budget first, and the time inside the slices is charged to it.
   */
  #compiler(caller: Caller, admit: () => void): (text: string, limits: Limits) => Promise<GoverningModel> {
    return async (text, limits) => {
      if (text.length > BIG_MODEL) admit();
      const slice = this.slice(caller);
      try {
        return await compileGoverningModelSliced(text, limits, slice.tick);
      } finally {
        slice.done();
      }
    };
  }

  /**
   * The rule checker of one request of `caller`: every check it runs shares one budget of
   * visits, however many commits and rules the request carries. `null` is the hub's own
   * (replays of its store): uncharged, and each call has the whole budget.
   */
  #checker(caller: Caller | null, admit: () => void): RuleChecker {
    let spent = 0;
    return async (model, checks, limit) => {
      const budget = caller === null ? limit : limit - spent;
      const pending = checks.filter((c) => !knownTrue(truthKey(model, c.rule, c.anchors)));
      if (pending.length === 0) return;
      admit();
      const started = performance.now();
      const meter = { visits: 0 };
      let done = 0;
      let offloaded = 0;
      const trial = Math.min(budget, this.#inlineVisits);
      try {
        for (; done < pending.length; done++) {
          const { rule, anchors } = pending[done]!;
          checkRule(model, rule, anchors, trial - meter.visits, meter, limit);
        }
      } catch (err) {
        const overTrial = isContractError(err, "VALIDATION_FAILED") && err.details?.reason === "check_budget";
        if (!overTrial || trial >= budget) throw err;
      } finally {
        this.charge(caller, performance.now() - started);
      }
      try {
        if (done < pending.length)
          offloaded = await this.#offload(caller, model, pending.slice(done), budget - meter.visits, limit);
      } finally {
        spent += meter.visits + offloaded;
      }
    };
  }

  async #offload(
    caller: Caller | null,
    model: GoverningModel,
    checks: readonly RuleCheck[],
    budget: number,
    total: number,
  ): Promise<number> {
    const payload: CheckRulesPayload = {
      model: model.text,
      rules: checks.map(({ rule, anchors }) => ({
        text: rule.text,
        path: rule.path,
        anchorIndex: rule.anchorIndex,
        anchors: [...anchors],
      })),
      budget,
      total,
    };
    try {
      const { ms, result } = await this.pool.run<{ visits: number }>("checkRules", payload);
      this.charge(caller, ms);
      for (const { rule, anchors } of checks) rememberTrue(truthKey(model, rule, anchors));
      return result.visits;
    } catch (err) {
      // A failed check (over budget, typically) cost its time too.
      this.charge(caller, workMsOf(err));
      throw err;
    }
  }
}
