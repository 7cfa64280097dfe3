/**
 * The engine's central decision (docs/language.md, docs/protocol.md): may this commit be
 * appended to this contract, and what does the contract become? Pure: no I/O except through
 * the caller's context; the state passed in is never modified.
 */
import type { Operation, WireCommit } from "./Commit.js";
import { ContractError, isContractError } from "./ContractError.js";
import type { ContractState, GoverningModel, RuleRecord } from "./ContractState.js";
import { checkRuleFormula, ruleAnchor } from "./checkRule.js";
import { checkRulesInline, type RuleCheck } from "./checkRules.js";
import { compileGoverningModel, parseRuleRecord } from "./compileGoverningModel.js";
import { dataWrites } from "./dataWrites.js";
import type { AssetOperation, EngineContext } from "./EngineContext.js";
import { DEFAULT_LIMITS } from "./limits.js";
import { replayStates } from "./replayStates.js";
import { RULE_MEMO_MIN_CHARS } from "./ruleParseMemo.js";
import { actionLabelsOf, type StoredCommit } from "./StoredCommit.js";
import {
  type CommitFacts,
  commitFacts,
  incompleteExplanation,
  type StepResult,
  step,
  unfinishedError,
} from "./step.js";
import { validateCommitShape } from "./validateCommitShape.js";
import { verifyAttestations, verifySigners } from "./verifySigners.js";

/** How an accepted commit moves the state forward (see applyDelta). */
export interface StateDelta {
  stored: StoredCommit;
  writes: Array<[string, unknown]>;
  /** The new governing model, when the commit replaced it. */
  model?: GoverningModel;
  current: number[];
  rules: RuleRecord[];
}

const ASSET_METHODS = new Set(["create", "send", "recv", "repost"]);

/** Validates `raw` as the next commit of `state`; returns the stored form and the delta, or throws ContractError. */
export async function acceptCommit(
  state: ContractState,
  raw: unknown,
  ctx: EngineContext,
): Promise<{ stored: StoredCommit; delta: StateDelta }> {
  const limits = ctx.limits ?? DEFAULT_LIMITS;
  const commit = ctx.prevalidated
    ? (raw as WireCommit)
    : validateCommitShape(raw, { contractId: state.contractId, limits, stored: ctx.trusted === true });
  if (commit.parent !== state.head) {
    throw new ContractError(
      "CONFLICT",
      `Cannot append commit: its parent ${JSON.stringify(commit.parent)} is not the head "${state.head}"`,
      { reason: "stale_parent", head: state.head },
    );
  }
  const signers =
    ctx.verifiedSigners ??
    (ctx.trusted ? [] : await verifySigners(commit, state.data, ctx.verifyOnThreadpool === true));
  // Most commits carry no attestations and no rules: they skip those awaits altogether (each
  // is a promise and a turn of the event loop per commit of a push).
  const attestations =
    ctx.verifiedAttestations ??
    (ctx.trusted || commit.head.attestations === undefined || commit.head.attestations.length === 0
      ? (commit.head.attestations ?? [])
      : await verifyAttestations(state.contractId, commit));
  const index = state.length;
  const ops = commit.data;
  const wasm = ctx.wasm ?? null;

  // One set of facts serves the current model and a candidate one: predicates are evaluated once.
  const facts = commitFacts(
    {
      contractId: state.contractId,
      hash: commit.hash,
      parent: commit.parent,
      input: { data: state.data, ops, signers: new Set(signers), attestations, timestamp: ctx.timestamp },
      wasm,
      ...(ctx.optimisticSignatures === true ? { optimisticSignatures: true } : {}),
      ...(ctx.tick !== undefined ? { tick: ctx.tick } : {}),
      // The hub's replay of its own store loads what it once accepted, bound or not.
      ...(ctx.trusted === true ? { unbounded: true } : {}),
    },
    actionLabelsOf(ops),
  );
  let current = state.current;
  if (state.model !== null) {
    const result = await step(state.model.lts, state.current, facts).catch(budgetOnUnfinished(facts, ctx));
    if (result.next.length === 0) {
      refuseReplayOnUnfinished(result, ctx);
      throw new ContractError(
        "VALIDATION_FAILED",
        `Commit takes no transition of the model from ${state.currentStateNames.map((n) => `"${n}"`).join(", ")}`,
        {
          reason: "no_transition",
          current_states: state.currentStateNames,
          candidates: result.candidates,
          ...incompleteExplanation(result),
        },
      );
    }
    current = result.next;
  }

  const newRules = ops.some((op) => op.method === "rule") ? await newRuleRecords(ops, index, ctx) : [];
  const modelOp = ops.find((op) => op.method === "model");
  let model = state.model;
  const budget = limits.modelCheckBudget;
  const check = ctx.checkRules ?? checkRulesInline;
  if (modelOp !== undefined) {
    model = await (ctx.compileModel ?? compileGoverningModel)(modelOp.value as string, limits);
    const rules = [...state.rules, ...newRules];
    const wanted = new Set(rules.map((r) => r.anchorIndex));
    if (ctx.readLog === undefined) throw new Error("acceptCommit: a MODEL commit needs ctx.readLog to replay the log");
    const replay = await replayStates(model.lts, state.contractId, ctx.readLog(), index - 1, wanted, wasm, ctx.tick);
    const own = await step(model.lts, replay.states, facts).catch(budgetOnUnfinished(facts, ctx));
    if (own.next.length === 0) {
      refuseReplayOnUnfinished(own, ctx);
      throw new ContractError("VALIDATION_FAILED", "The new model has no transition for the commit that installs it", {
        reason: "model_replay",
        index,
        hash: commit.hash,
        current_states: replay.states.map((s) => model!.lts.displayNames[s]),
        candidates: own.candidates,
        ...incompleteExplanation(own),
      });
    }
    current = own.next;
    await check(
      model,
      rules.map((rule) => ({ rule, anchors: replay.statesAt.get(rule.anchorIndex) ?? [] })),
      budget,
    );
  } else if (model !== null && newRules.length > 0) {
    const checks: RuleCheck[] = [];
    for (const rule of newRules) {
      const anchors =
        rule.anchorIndex === index - 1 ? state.current : await statesAfter(model, state, rule.anchorIndex, ctx);
      checks.push({ rule, anchors });
    }
    await check(model, checks, budget);
  }

  const assetOps: AssetOperation[] = [];
  ops.forEach((op, opIndex) => {
    if (ASSET_METHODS.has(op.method)) assetOps.push({ opIndex, op });
  });
  if (assetOps.length > 0 && ctx.assets) await ctx.assets.check(state.contractId, commit.hash, assetOps);

  const stored: StoredCommit = {
    index,
    hash: commit.hash,
    parent: commit.parent,
    data: ops,
    signatures: commit.head.signatures,
    timestamp: ctx.timestamp,
    signers,
  };
  if (attestations.length > 0) stored.attestations = attestations;
  const delta: StateDelta = { stored, writes: dataWrites(ops), current, rules: newRules };
  if (modelOp !== undefined && model !== null) delta.model = model;
  return { stored, delta };
}

/**
 * A replay refuses a stored commit only for what the log says: not for a custom predicate
 * the host did not finish (step.ts, UNFINISHED_CAUSES), which would call a sound log damaged.
 * A fresh commit's refusal names the cause in its candidates instead (docs/predicates-wasm.md).
 */
function refuseReplayOnUnfinished(result: StepResult, ctx: EngineContext): void {
  if (result.unfinished !== undefined && (ctx.trusted === true || ctx.replay === true))
    throw unfinishedError(result.unfinished);
}

/**
 * The same for a replay refused with `predicate_budget`: which predicates a decision runs
 * depends on the answers before them (an unfinished `-name(…)` guard holds, and its
 * transition goes on to more), so the count may rest on an unfinished one too.
 */
function budgetOnUnfinished(facts: CommitFacts, ctx: EngineContext): (err: unknown) => never {
  return (err) => {
    if (
      facts.unfinished !== undefined &&
      (ctx.trusted === true || ctx.replay === true) &&
      isContractError(err, "VALIDATION_FAILED")
    )
      throw unfinishedError(facts.unfinished);
    throw err;
  };
}

/** Records for the commit's rule operations, with their anchors resolved to log indices. */
async function newRuleRecords(ops: readonly Operation[], index: number, ctx: EngineContext): Promise<RuleRecord[]> {
  const records: RuleRecord[] = [];
  for (const op of ops) {
    if (op.method !== "rule") continue;
    // As in acceptGenesis: the request's tick comes between big rules.
    if ((op.value as string).length >= RULE_MEMO_MIN_CHARS) await ctx.tick?.();
    const record = parseRuleRecord(op.value as string, op.path ?? null, index - 1);
    // Not on a trusted replay of the hub's own store: see acceptGenesis.
    if (!ctx.trusted) checkRuleFormula(record);
    const anchor = ruleAnchor(record.decl);
    if ("hash" in anchor) {
      const at = (await ctx.commitIndex?.(anchor.hash)) ?? null;
      if (at === null || at >= index) {
        throw new ContractError(
          "VALIDATION_FAILED",
          `Cannot add rule${record.path ? ` ${record.path}` : ""}: its anchor "${anchor.hash}" is not an earlier commit of this contract`,
          { reason: "unknown_anchor", anchor: anchor.hash },
        );
      }
      record.anchorIndex = at;
    }
    records.push(record);
  }
  return records;
}

/** States right after commit `index` in the governing model, by replaying the log (rare: hash-anchored rules). */
async function statesAfter(
  model: GoverningModel,
  state: ContractState,
  index: number,
  ctx: EngineContext,
): Promise<number[]> {
  if (ctx.readLog === undefined) throw new Error("acceptCommit: a hash-anchored rule needs ctx.readLog");
  const replay = await replayStates(
    model.lts,
    state.contractId,
    ctx.readLog(),
    index,
    new Set([index]),
    ctx.wasm ?? null,
    ctx.tick,
  );
  return replay.statesAt.get(index) ?? replay.states;
}

/** Moves `state` forward by an accepted commit's delta. */
export function applyDelta(state: ContractState, delta: StateDelta): void {
  for (const [path, value] of delta.writes) state.data.set(path, value);
  if (delta.model !== undefined) state.model = delta.model;
  state.current = delta.current;
  if (delta.rules.length > 0) state.rules = [...state.rules, ...delta.rules];
  state.head = delta.stored.hash;
  state.length = delta.stored.index + 1;
  state.headTimestamp = delta.stored.timestamp;
}
