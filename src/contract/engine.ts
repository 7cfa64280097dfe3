/**
 * The contract engine's public face: everything the hub, the command line and the tests use
 * to decide commits. Pure: the engine never does I/O; callers pass what it needs in the context.
 */
import type { Attestation, GenesisValue, Operation, WireCommit } from "./Commit.js";
import { computeCommitHash } from "./commitHash.js";
import { normalizeIdentity } from "./hex.js";

export { acceptCommit, applyDelta, type StateDelta } from "./acceptCommit.js";
export { acceptGenesis } from "./acceptGenesis.js";
export { buildWireCommit, type CommitSigner } from "./buildWireCommit.js";
export { ContractState, type GoverningModel, type RuleRecord } from "./ContractState.js";
export { decideProposal, type ProposalDecision, proposalCountable, proposalMissing } from "./decideProposal.js";
export type { AssetHooks, AssetOperation, EngineContext, PredicateResult, WasmRunner } from "./EngineContext.js";
export type { MissingSignature } from "./missingSignatures.js";
export { type ReplayOptions, replayLog } from "./replayLog.js";
export { type StoredCommit, toLogEntry, toPulledCommit, toWireCommit } from "./StoredCommit.js";
export { type StateView, stateView, type ValidAction, validActions } from "./stateView.js";
export { SignatureBatch, signerKeysHold, startBatchSignatures, verifyBatchSignatures } from "./verifySigners.js";

/** What a new contract starts with. */
export interface GenesisInput {
  model: string | null;
  rules: string[];
  /** Identity, `ed25519:<hex>` or hex. */
  owner: string;
  /** Initial posts, `{"<path>": value}`, written in key order. */
  state?: Record<string, unknown>;
}

/** The operations of a genesis commit (docs/protocol.md). */
export function genesisData(input: GenesisInput): Operation[] {
  const value: GenesisValue = {
    model: input.model,
    rules: input.rules,
    owner: normalizeIdentity(input.owner, "owner"),
  };
  const data: Operation[] = [{ method: "genesis", value }];
  for (const [path, v] of Object.entries(input.state ?? {})) data.push({ method: "post", path, value: v });
  return data;
}

/** A push-format commit with its hash; `signatures` are added as given (see buildWireCommit to sign). */
export function buildCommit(
  contractId: string,
  parent: string | null,
  data: Operation[],
  signatures: Record<string, string> = {},
  attestations?: Attestation[],
): WireCommit {
  const head: WireCommit["head"] = { parent, signatures };
  if (attestations !== undefined) head.attestations = attestations;
  return { hash: computeCommitHash(contractId, parent, data), parent, data, head };
}
