/**
 * The SDK: what `import … from "contract-hub"` offers. A typed client of every route, the
 * WebSocket subscriptions, and what a client needs to build, hash and sign commits itself.
 */
export type {
  CommitEvent,
  IncomingSend,
  IncomingSendsResult,
  MissingSignature,
  ProposalView,
  PullResult,
  StateView,
  SubmitCommitResult,
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
export { HubClient, type HubClientOptions, type ProposalAnswer } from "./HubClient.js";
export { type CommitNotification, HubSocket, type ProposalNotification } from "./HubSocket.js";
export { proposalSignatures, verifiedProposalHash } from "./proposalSignatures.js";
export { commitHashOfBody, signedSubmitBody, signedWireCommit } from "./signedCommits.js";
export { type PushProgress, pullAll, pushInBatches } from "./sync.js";
