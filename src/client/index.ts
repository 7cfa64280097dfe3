/**
 * The SDK: what `import … from "contract-hub"` offers. A typed client of every route, the
 * WebSocket subscriptions, what a client needs to build, hash and sign commits itself, and
 * the checks of the hub's transparency log (checkHubLog, and the checkpoint, cosignature and
 * proof verifiers it is made of, for clients that keep their own state).
 */
export type {
  AssetsResult,
  CheckpointKeyResult,
  CommitEvent,
  ConsistencyProofResult,
  InclusionProofResult,
  IncomingSend,
  IncomingSendsResult,
  ListContractsResult,
  ListedContract,
  ListedState,
  MissingSignature,
  ParamType,
  ProposalView,
  PullResult,
  StateView,
  SubmitCommitResult,
  SynthesisResult,
  Template,
  TemplateParam,
  TemplateSummary,
  ValidAction,
} from "../api/responses.js";
export type { CreateContractBody, SubmitCommitBody } from "../api/schemas.js";
export type {
  Attestation,
  CommitHead,
  LogEntry,
  Method,
  Operation,
  PulledCommit,
  WireCommit,
} from "../contract/Commit.js";
export { ContractError, isContractError } from "../contract/ContractError.js";
export { canonicalize } from "../contract/canonicalJson.js";
export { computeCommitHash, signCommit, verifyCommitSignature } from "../contract/commitHash.js";
export { type ErrorCode, isErrorCode } from "../contract/errorCodes.js";
export { generateKeyPair, publicKeyFromSeed, type RawKeyPair } from "../contract/keys.js";
export type {
  WasmFailureCause,
  WasmPredicateInput,
  WasmPredicateOutput,
  WasmPredicateResult,
} from "../contract/WasmPredicate.js";
export { type Checkpoint, CheckpointError, parseVerifierKey, verifyCheckpoint } from "../tlog/checkpoint.js";
export {
  parseWitnessVerifierKey,
  type VerifiedCosignature,
  verifyCosignatures,
  type WitnessKey,
} from "../tlog/cosignature.js";
export { EMPTY_ROOT, leafHash, verifyConsistency, verifyInclusion } from "../tlog/merkle.js";
export {
  type CheckHubLogOptions,
  checkHubLog,
  type LogCheck,
  PENDING_GRACE_MS,
  type PinnedLogKey,
  type VerifiedCheckpoint,
} from "./checkHubLog.js";
export { HubClient, type HubClientOptions, type ProposalAnswer } from "./HubClient.js";
export { type CommitNotification, HubSocket, type ProposalNotification } from "./HubSocket.js";
export { proposalSignatures, verifiedProposalHash } from "./proposalSignatures.js";
export { type CommitSigner, commitHashOfBody, signedSubmitBody, signedWireCommit } from "./signedCommits.js";
export { type PushProgress, pullAll, pushInBatches } from "./sync.js";
