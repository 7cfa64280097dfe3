import type { GenesisValue } from "./Commit.js";
import { ContractError } from "./ContractError.js";
import { ContractState, type GoverningModel, type RuleRecord } from "./ContractState.js";
import { checkGenesisRule } from "./checkRule.js";
import { checkRulesInline } from "./checkRules.js";
import { compileGoverningModel, parseRuleRecord } from "./compileGoverningModel.js";
import { dataWrites } from "./dataWrites.js";
import type { EngineContext } from "./EngineContext.js";
import { normalizeIdentity } from "./hex.js";
import { DEFAULT_LIMITS } from "./limits.js";
import { RULE_MEMO_MIN_CHARS } from "./ruleParseMemo.js";
import type { StoredCommit } from "./StoredCommit.js";
import { validateCommitShape } from "./validateCommitShape.js";
import { verifySigners } from "./verifySigners.js";

/**
 * Validates a contract's first commit (docs/protocol.md): parent null, a genesis operation
 * `{model, rules, owner}` followed only by posts of the initial state; the model compiles and
 * every rule holds at the initial states (else 422). Returns the new contract's state.
 * Whether the owner may create it is the hub's decision, not the engine's.
 */
export async function acceptGenesis(
  contractId: string,
  raw: unknown,
  ctx: EngineContext,
): Promise<{ state: ContractState; stored: StoredCommit }> {
  const limits = ctx.limits ?? DEFAULT_LIMITS;
  const commit = validateCommitShape(raw, { contractId, limits, stored: ctx.trusted === true });
  if (commit.parent !== null) {
    throw new ContractError("VALIDATION_FAILED", "Cannot create contract: its first commit must have parent null", {
      reason: "genesis_position",
    });
  }
  const extra = commit.data.slice(1).find((op) => op.method !== "post");
  if (extra !== undefined) {
    throw new ContractError(
      "VALIDATION_FAILED",
      `Cannot create contract: a genesis commit holds only the genesis operation and posts, found "${extra.method}"`,
      { reason: "genesis_ops", method: extra.method },
    );
  }
  const genesis = commit.data[0]!.value as GenesisValue;
  const owner = normalizeIdentity(genesis.owner, "genesis owner");
  const model: GoverningModel | null =
    genesis.model === null ? null : await (ctx.compileModel ?? compileGoverningModel)(genesis.model, limits);
  const rules: RuleRecord[] = [];
  for (const text of genesis.rules) {
    // A big rule's parse and formula checks take milliseconds each: the request's tick comes
    // between them (ordinary rules never tick, so they are neither charged nor refused).
    if (text.length >= RULE_MEMO_MIN_CHARS) await ctx.tick?.();
    const rule = parseRuleRecord(text, null, 0);
    // Admission checks of new rules; a trusted replay of the hub's own store keeps what the
    // rules of its day admitted, so tightening them never turns a stored contract CORRUPTED.
    if (!ctx.trusted) checkGenesisRule(rule);
    rules.push(rule);
  }
  const current = model === null ? [] : [...model.lts.initialStates].sort((a, b) => a - b);
  if (model !== null && rules.length > 0) {
    const check = ctx.checkRules ?? checkRulesInline;
    await check(
      model,
      rules.map((rule) => ({ rule, anchors: current })),
      limits.modelCheckBudget,
    );
  }
  const data = new Map<string, unknown>(dataWrites(commit.data));
  const signers = ctx.verifiedSigners ?? (ctx.trusted ? [] : await verifySigners(commit, new Map()));
  const stored: StoredCommit = {
    index: 0,
    hash: commit.hash,
    parent: null,
    data: commit.data,
    signatures: commit.head.signatures,
    timestamp: ctx.timestamp,
    signers,
  };
  const state = new ContractState({
    contractId,
    owner,
    createdAt: ctx.timestamp,
    head: commit.hash,
    length: 1,
    data,
    model,
    current,
    rules,
  });
  return { state, stored };
}
