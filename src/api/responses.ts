/**
 * The response bodies the SDK and the adapters share with the core. Requests are typed by
 * their TypeBox schemas (./schemas.ts); responses are built by the core from the engine's
 * types, so these name those types rather than restate them.
 */
import type { LogEntry, PulledCommit } from "../contract/Commit.js";
import type { StateView } from "../contract/stateView.js";

export type { StateView, ValidAction } from "../contract/stateView.js";

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

/** A commit event, delivered in log order exactly once per stored commit. */
export interface CommitEvent {
  contract_id: string;
  commit: LogEntry;
  state: StateView;
}
