/**
 * The hub's operations, free of any transport (docs/architecture.md: REST, JSON-RPC and WebSocket
 * adapters call these and nothing else). Every operation returns the response body of
 * docs/api.md or throws ContractError, whose code maps through the one error table.
 */
import type { Caller } from "../api/Caller.js";
import type {
  CheckpointKeyResult,
  CheckpointResult,
  CommitEvent,
  ConsistencyProofResult,
  InclusionProofResult,
  IncomingSendsResult,
  ListContractsResult,
  ProposalView,
  PullResult,
  StateView,
  SubmitCommitResult,
  SynthesisResult,
  Template,
  TemplateSummary,
} from "../api/responses.js";
import type {
  CreateContractBody,
  GrantBody,
  ListContractsQuery,
  PageQuery,
  PullQuery,
  PushBody,
  SubmitCommitBody,
  SynthesizeBody,
} from "../api/schemas.js";
import type { LogEntry } from "../contract/Commit.js";

// The request and response types live in src/api, shared with the SDK; they are re-exported
// here so code above the core can name the whole surface from one file.
export { ANONYMOUS, type Caller } from "../api/Caller.js";
export type {
  CommitEvent,
  MissingSignature,
  ProposalView,
  PullResult,
  StateView,
  SubmitCommitResult,
  ValidAction,
} from "../api/responses.js";
export type { CreateContractBody, SubmitCommitBody } from "../api/schemas.js";

/** How a transport runs one synthesis: the core only sees a signal, never a connection. */
export interface SynthesizeOptions {
  /**
   * Aborted by the transport when the caller is gone (its connection closed before the answer):
   * the language model's call under way is cancelled (docs/synthesis.md).
   */
  signal?: AbortSignal;
}

/** A pull as pullStream hands it to an adapter, which writes the pages as they come. */
export interface PullStream {
  contract_id: string;
  head: string;
  /** Pages of the commits' JSON texts, in order. */
  pages: AsyncIterable<string[]>;
  hasMore: () => boolean;
  /** The adapter now waits for its reader: the time until `busy` is not charged to the caller. */
  idle: () => void;
  /** The adapter works on the pull again. */
  busy: () => void;
}

export interface HubApi extends ProposalApi {
  health(): Promise<{ status: string; version: string; storage?: string }>;
  /** `include: "state"` adds each listed contract's `state: {current_state, current_states}` (docs/api.md). */
  listContracts(caller: Caller, q: ListContractsQuery): Promise<ListContractsResult>;
  createContract(caller: Caller, body: CreateContractBody): Promise<{ contract_id: string; created_at: number }>;
  getContract(
    caller: Caller,
    id: string,
  ): Promise<{
    contract_id: string;
    model: string | null;
    rules: string[];
    state: StateView;
    created_at: number;
  }>;
  getState(caller: Caller, id: string): Promise<StateView>;
  getLog(caller: Caller, id: string, q: PageQuery): Promise<{ commits: LogEntry[]; total: number }>;
  /**
   * The JSON text of getLog's page (exactly JSON.stringify of it) in pieces built entry by
   * entry, the event loop served in between: a page is up to about 8 MiB. Refusals (no such
   * contract, no access, a bad query, a spent work budget for a page past 1 MiB) come before
   * the first piece; reading the page and building its pieces are charged to the caller.
   */
  getLogText(caller: Caller, id: string, q: PageQuery): Promise<AsyncIterable<string>>;
  getCommit(caller: Caller, id: string, hash: string): Promise<LogEntry>;
  submitCommit(
    caller: Caller,
    id: string,
    body: SubmitCommitBody,
  ): Promise<{ result: SubmitCommitResult; created: boolean }>;
  push(caller: Caller, id: string, body: PushBody): Promise<{ pushed: number; head: string }>;
  pull(caller: Caller, id: string, q: PullQuery): Promise<PullResult>;
  /**
   * Streams the pull response's commits in order, as pages of their JSON texts (each exactly
   * JSON.stringify of the PulledCommit): for large pulls, the adapter writes them as they come.
   * The pull is charged to the caller's work budget from its first page to its last, but for
   * the waits the adapter brackets with `idle()` and `busy()`: while it waits for its reader to
   * drain, the hub is not working for the caller.
   */
  pullStream(caller: Caller, id: string, q: PullQuery): Promise<PullStream>;
  /**
   * `GET /checkpoint` and JSON-RPC `getCheckpoint`: the log's signed checkpoint now; with
   * witnesses, the newest one that carries their quorum of cosignatures (UNAVAILABLE before the first).
   */
  getCheckpoint(): Promise<CheckpointResult>;
  /** `GET /checkpoint/key`: the log key a client pins. */
  getCheckpointKey(): Promise<CheckpointKeyResult>;
  /** `GET /proofs/inclusion`: a commit's leaf and inclusion proof (NOT_FOUND when unreadable). */
  getInclusionProof(caller: Caller, q: { hash?: unknown; size?: unknown }): Promise<InclusionProofResult>;
  /** `GET /proofs/consistency`. */
  getConsistencyProof(q: { from?: unknown; to?: unknown }): Promise<ConsistencyProofResult>;
  /**
   * Subscribes to a contract's commits from index `since` (inclusive) or from now; returns the
   * unsubscribe function. `onClosed` is told when the hub ends the subscription itself (the
   * subscriber lost read access to a private contract, or its access key was revoked); no event
   * follows it.
   */
  subscribe(
    caller: Caller,
    id: string,
    since: number | string | undefined,
    listener: (event: CommitEvent) => void,
    onClosed?: (reason: "access_lost" | "access_key_revoked") => void,
  ): Promise<() => void>;
  /** `POST /contracts/:id/grant` (owner only): `role` `reader`, `writer` or `none`. */
  grant(caller: Caller, id: string, body: GrantBody): Promise<{ contract_id: string; identity: string; role: string }>;
  /** Calls `listener(contractId, identity)` after the identity's grant on a contract changed; returns the unsubscribe function. */
  onAccessChange(listener: (contractId: string, identity: string) => void): () => void;
  /** `GET /contracts/:id/assets`: a page of the assets created in the contract and of the balances it holds. */
  getAssets(caller: Caller, id: string, q?: { limit?: unknown; offset?: unknown }): Promise<unknown>;
  /**
   * `GET /contracts/:id/incoming`: the SENDs addressed to the contract, oldest first, with their
   * receipts; `pending` (true or "true") keeps the ones not yet received.
   */
  listIncomingSends(
    caller: Caller,
    id: string,
    q: { pending?: unknown; limit?: unknown; offset?: unknown },
  ): Promise<IncomingSendsResult>;
  /** UNAVAILABLE when the hub was built without synthesis. */
  synthesize(caller: Caller, body: SynthesizeBody, opts?: SynthesizeOptions): Promise<SynthesisResult>;
  /** UNAVAILABLE when the hub was built without a template catalogue. */
  listTemplates(): TemplateSummary[];
  getTemplate(id: string): Template;
  /**
   * The tick of `caller`'s long work done outside these methods (a transport decoding a big
   * request body in slices): it yields when the shared slice is used up, asks the caller's
   * work budget at its first call (429 `work_budget` when spent) and charges the time.
   */
  ticker(caller: Caller): () => Promise<void>;
}

/** Proposals (docs/proposals.md): one party proposes a commit, the others add signatures, the hub appends it once complete. */
export interface ProposalApi {
  propose(
    caller: Caller,
    id: string,
    body: { commit?: unknown },
  ): Promise<{ proposal: ProposalView; commit?: SubmitCommitResult; created: boolean }>;
  listProposals(
    caller: Caller,
    id: string,
    q: { status?: unknown; limit?: unknown; offset?: unknown },
  ): Promise<{ proposals: ProposalView[] }>;
  getProposal(caller: Caller, id: string, hash: string): Promise<{ proposal: ProposalView }>;
  signProposal(
    caller: Caller,
    id: string,
    hash: string,
    body: { signatures?: unknown },
  ): Promise<{ proposal: ProposalView; commit?: SubmitCommitResult }>;
  withdrawProposal(caller: Caller, id: string, hash: string): Promise<{ proposal: ProposalView }>;
  /**
   * Calls `listener` with each new or changed proposal of a contract the caller may read;
   * returns the unsubscribe function. On a private contract `onClosed` is told, and nothing
   * more is sent, once the caller may no longer read it.
   */
  subscribeProposals(
    caller: Caller,
    id: string,
    listener: (proposal: ProposalView) => void,
    onClosed?: (reason: "access_lost" | "access_key_revoked") => void,
  ): Promise<() => void>;
}
