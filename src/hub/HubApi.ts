/**
 * The hub's operations, free of any transport (ARCHITECTURE.md: REST, JSON-RPC and WebSocket
 * adapters call these and nothing else). Every operation returns the response body of
 * PROTOCOL.md §4/§8 or throws ContractError, whose code maps through the one error table.
 */
import type { LogEntry, PulledCommit, WireCommit } from "../contract/Commit.js";
import type { StateView } from "../contract/stateView.js";

/** Who is calling, as established by request authentication (null fields: anonymous). */
export interface Caller {
  /** Identity key, lower-case hex, or null when unauthenticated. */
  identity: string | null;
  /** The access key that signed the request, lower-case hex. */
  accessKey: string | null;
}

export const ANONYMOUS: Caller = Object.freeze({ identity: null, accessKey: null });

export type { StateView, ValidAction } from "../contract/stateView.js";

export interface CreateContractBody {
  contract_id?: string;
  model?: string | null;
  rules?: string[];
  owner?: string;
  state?: Record<string, unknown>;
  readers?: string[];
  template?: string;
  params?: Record<string, unknown>;
}

/** `POST /contracts/:id/commits` body (PROTOCOL.md §3): either fields, or `{commit}`. */
export interface SubmitCommitBody {
  contract_id?: string;
  method?: string;
  path?: string;
  value?: unknown;
  action?: string;
  action_labels?: string[];
  signatures?: Record<string, string>;
  attestations?: unknown[];
  parent?: string | null;
  commit?: WireCommit;
}

export interface SubmitCommitResult {
  commit_hash: string;
  index: number;
  new_state: StateView;
  timestamp: number;
}

export interface PullResult {
  contract_id: string;
  head: string;
  commits: PulledCommit[];
  has_more?: boolean;
}

/** A commit event (PROTOCOL.md §9), delivered in log order exactly once per stored commit. */
export interface CommitEvent {
  contract_id: string;
  commit: LogEntry;
  state: StateView;
}

export interface HubApi {
  health(): { status: string; version: string };
  listContracts(
    caller: Caller,
    q: { limit?: number; offset?: number },
  ): Promise<{ contracts: unknown[]; total: number }>;
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
  getLog(
    caller: Caller,
    id: string,
    q: { limit?: number; offset?: number },
  ): Promise<{ commits: LogEntry[]; total: number }>;
  getCommit(caller: Caller, id: string, hash: string): Promise<LogEntry>;
  submitCommit(
    caller: Caller,
    id: string,
    body: SubmitCommitBody,
  ): Promise<{ result: SubmitCommitResult; created: boolean }>;
  push(caller: Caller, id: string, body: { commits: WireCommit[] }): Promise<{ pushed: number; head: string }>;
  pull(caller: Caller, id: string, q: { since?: string; limit?: number }): Promise<PullResult>;
  /** Streams the pull response's commits in order (for large pulls; the adapter writes them as they come). */
  pullStream(
    caller: Caller,
    id: string,
    q: { since?: string; limit?: number },
  ): Promise<{ contract_id: string; head: string; commits: AsyncIterable<PulledCommit>; hasMore: () => boolean }>;
  /** Subscribes to a contract's commits from index `since` (inclusive) or from now; returns the unsubscribe function. */
  subscribe(
    caller: Caller,
    id: string,
    since: number | string | undefined,
    listener: (event: CommitEvent) => void,
  ): Promise<() => void>;
}
