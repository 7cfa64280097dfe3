/**
 * The response bodies the SDK and the adapters share with the core. Requests are typed by
 * their TypeBox schemas (./schemas.ts); responses are built by the core from the engine's
 * types, so these name those types rather than restate them.
 */
import type { LogEntry, PulledCommit, WireCommit } from "../contract/Commit.js";
import type { MissingSignature } from "../contract/missingSignatures.js";
import type { StateView } from "../contract/stateView.js";

export type { MissingSignature } from "../contract/missingSignatures.js";
export type { StateView, ValidAction } from "../contract/stateView.js";

export interface SubmitCommitResult {
  commit_hash: string;
  index: number;
  new_state: StateView;
  timestamp: number;
  /** Position in the hub's Merkle tree of every commit (docs/transparency.md). */
  leaf_index?: number;
}

/** `getCheckpoint`: the signed checkpoint note and what it says. */
export interface CheckpointResult {
  /** The signed note, as `GET /checkpoint` serves it. */
  checkpoint: string;
  size: number;
  /** Root hash, lower-case hex. */
  root: string;
}

/** `GET /checkpoint/key`: what a client pins. */
export interface CheckpointKeyResult {
  origin: string;
  public_key: string;
  verifier_key: string;
  /** With witnesses: the quorum, the cosigned and current sizes, and each witness's state. */
  witnesses?: {
    quorum: number;
    cosigned_size: number | null;
    tree_size: number | null;
    witnesses: {
      name: string;
      verifier_key: string;
      url: string;
      cosigned_size: number | null;
      error: string | null;
    }[];
  };
}

/** `GET /proofs/inclusion`. */
export interface InclusionProofResult {
  leaf_index: number;
  tree_size: number;
  proof: string[];
}

/** `GET /proofs/consistency`. */
export interface ConsistencyProofResult {
  from: number;
  to: number;
  proof: string[];
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

/** A commit being co-signed on the hub: the proposal object of the REST, JSON-RPC and event bodies. */
export interface ProposalView {
  hash: string;
  contract_id: string;
  parent: string;
  data: WireCommit["data"];
  signatures: Record<string, string>;
  attestations?: NonNullable<WireCommit["head"]["attestations"]>;
  status: "open" | "committed" | "stale" | "withdrawn" | "expired";
  missing: MissingSignature[];
  proposer: string;
  created_at: number;
  expires_at: number;
  commit_index?: number;
}

/** One SEND addressed to a contract (`GET /contracts/:id/incoming`). */
export interface IncomingSend {
  /** The SEND commit's hash: what a RECV names as `send_commit_id`. */
  send_commit_id: string;
  /** The sending contract. */
  from_contract: string;
  asset_id: string;
  /** The asset's issuing contract. */
  issuer: string;
  amount: number;
  /** The SEND commit's receipt time, integer seconds. */
  timestamp: number;
  /** The SEND commit's leaf in the hub's Merkle tree. */
  leaf_index: number;
  received: boolean;
  /** The RECV commit that received it, or null. */
  recv_commit_id: string | null;
}

/** `GET /contracts/:id/incoming` and JSON-RPC `listIncomingSends`. */
export interface IncomingSendsResult {
  contract_id: string;
  sends: IncomingSend[];
  /** SENDs matching the filter, over every page. */
  total: number;
}

/** What `include=state` adds to each listed contract: its current state, as `GET /contracts/:id/state` names it. */
export interface ListedState {
  current_state: string;
  current_states: string[];
}

/** One contract of `GET /contracts` and JSON-RPC `listContracts`. */
export interface ListedContract {
  contract_id: string;
  owner: string;
  created_at: number;
  head: string;
  commit_count: number;
  private: boolean;
  /** With `include=state` only; null when the caller could no longer read it once its state was read. */
  state?: ListedState | null;
}

/** `GET /contracts` and JSON-RPC `listContracts`: one page of the contracts the caller may read. */
export interface ListContractsResult {
  contracts: ListedContract[];
  /** Contracts the caller may read, over every page. */
  total: number;
}

/** Parameter types a template can declare. `pubkeys` is a list of distinct keys. */
export type ParamType = "pubkey" | "pubkeys" | "integer" | "text" | "date" | "datetime";

/** One template parameter as published in the catalogue (docs/api.md Param, plus documentation fields). */
export interface TemplateParam {
  name: string;
  type: ParamType;
  required: boolean;
  description: string;
  /** Used when the parameter is omitted (optional parameters only). */
  default?: number | string;
  /** State path the value is written to; for `pubkeys`, the directory holding one `.id` per key. */
  path: string;
  /** Bounds: the value for `integer`, the number of keys for `pubkeys`. */
  min?: number;
  max?: number;
}

/** A template without model and rules (the `GET /templates` entry). */
export interface TemplateSummary {
  id: string;
  name: string;
  description: string;
  params: TemplateParam[];
}

/** The `GET /templates/:id` response: the summary with the model, the rules and what each party is protected by. */
export interface Template extends TemplateSummary {
  model: string;
  rules: string[];
  /** Party roles, in the order the template names them. */
  parties: string[];
  /** Role → the protections its rules give that party. */
  protections: Record<string, string>;
}

/** `POST /contracts/synthesize`: model, rules, parties, protections and prompt, plus how it was made (`source`, `patterns`, `confidence`) and what it guessed (`warnings`). */
export interface SynthesisResult {
  model: string;
  rules: string[];
  parties: string[];
  /** Party name → what protects that party. */
  protections: Record<string, string>;
  /** The prompt for the language model (for `patterns`, the one that would have been sent). */
  prompt: string;
  source: "llm" | "patterns";
  warnings: string[];
  /**
   * The patterns the answer was built from: for `patterns`, the family first, then the parts
   * the description asked for (`["escrow", "arbiter", "deadline"]`); for `llm`, the family a
   * `pattern_hint` named, if any.
   */
  patterns: string[];
  /** 0..1: how sure the synthesizer is that this is the contract described (see docs/synthesis.md). */
  confidence: number;
}

/** `GET /contracts/:id/assets` and JSON-RPC `getAssets`: one page of a contract's books. */
export interface AssetsResult {
  contract_id: string;
  /** Assets the contract created, by asset id. */
  assets: { asset_id: string; issuer: string; quantity: number; divisibility: number }[];
  /** Balances the contract holds, by issuer, then asset id. */
  balances: { asset_id: string; issuer: string; amount: number }[];
  /** Assets the contract created, over every page. */
  assets_total: number;
  /** Balances the contract holds, over every page. */
  balances_total: number;
}
