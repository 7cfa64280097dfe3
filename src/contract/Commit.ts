/** Commit shapes on the wire and in the log (docs/protocol.md, docs/api.md). */

import { ACTION_LABEL_PATTERN } from "../lang/properties.js";
import { ContractError } from "./ContractError.js";

/** Operation methods, lower case as they appear in commits. */
export const METHODS = ["genesis", "post", "rule", "model", "repost", "action", "create", "send", "recv"] as const;
export type Method = (typeof METHODS)[number];

/** True when `value` is one of the commit methods. */
export function isMethod(value: unknown): value is Method {
  return typeof value === "string" && (METHODS as readonly string[]).includes(value);
}

/** One operation of a commit; `action` operations carry their label in `value`. */
export interface Operation {
  method: Method;
  path?: string;
  value?: unknown;
}

/** Value of the genesis operation; `owner` is an identity (`ed25519:<hex>` or hex). */
export interface GenesisValue {
  model: string | null;
  rules: string[];
  owner: string;
}

/** Value of a `create` operation. */
export interface CreateValue {
  asset_id: string;
  quantity: number;
  divisibility: number;
}

/** Value of a `send` operation; `asset_id` is plain or `<issuer>/<asset_id>`. */
export interface SendValue {
  asset_id: string;
  to_contract: string;
  amount: number;
}

/** Value of a `recv` operation. */
export interface RecvValue {
  send_commit_id: string;
}

/** An oracle's attestation (docs/protocol.md), carried in `head.attestations`. */
export interface Attestation {
  oracle: string;
  claim: string;
  value: unknown;
  signature: string;
}

/** Commit head: the parent again, signatures keyed by state path or identity, attestations. */
export interface CommitHead {
  parent: string | null;
  signatures: Record<string, string>;
  attestations?: Attestation[];
}

/** Push format (docs/api.md). */
export interface WireCommit {
  hash: string;
  parent: string | null;
  data: Operation[];
  head: CommitHead;
}

/** Pull format: push format plus `body` (= data) and the hub's receipt `timestamp` (seconds). */
export interface PulledCommit extends WireCommit {
  body: Operation[];
  timestamp: number;
  /** Position in the hub's Merkle tree of every commit. */
  leaf_index?: number;
}

/** Log entry (docs/api.md, docs/protocol.md), built from the commit's first non-action operation. */
export interface LogEntry {
  index: number;
  hash: string;
  method: Method;
  path?: string;
  value?: unknown;
  /** First verified signer, `ed25519:<hex>`; absent on genesis. */
  signer?: string;
  signers: string[];
  timestamp: number;
  action_labels?: string[];
  /** Position in the hub's Merkle tree of every commit. */
  leaf_index?: number;
}

/** Where a contract's model lives in its data. */
export const MODEL_PATH = "/model/default.modality";

/** Contract ids (docs/api.md); see RESERVED_CONTRACT_IDS for the ids no contract may take. */
export const CONTRACT_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** Action labels (docs/protocol.md; defined with the language's labels); method names are excluded separately. */
export { ACTION_LABEL_PATTERN };
/** Asset ids (docs/api.md). */
export const ASSET_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** True when `value` is a well-formed contract id (the reserved `synthesize` included). */
export function isContractId(value: unknown): value is string {
  return typeof value === "string" && CONTRACT_ID_PATTERN.test(value);
}

/**
 * Ids no new contract may take: `synthesize` names the synthesis request beside the contracts
 * (`POST /contracts/synthesize`), so a contract of that name could not be addressed. The rule
 * belongs to the protocol's id grammar, so the core applies it for every transport.
 */
export const RESERVED_CONTRACT_IDS: ReadonlySet<string> = new Set(["synthesize"]);

/** Throws INVALID_REQUEST unless `id` may name a new contract: well formed and not reserved. */
export function checkNewContractId(id: unknown, field?: string): asserts id is string {
  if (!isContractId(id) || RESERVED_CONTRACT_IDS.has(id)) {
    const what = RESERVED_CONTRACT_IDS.has(id as string) ? "is reserved" : "is not a valid contract id";
    throw new ContractError("INVALID_REQUEST", `Contract id ${JSON.stringify(id)} ${what}`, {
      reason: "contract_id",
      ...(field !== undefined ? { field } : {}),
    });
  }
}

/** True when `value` may be used as an action label: the pattern, and not a method name. */
export function isActionLabel(value: unknown): value is string {
  return typeof value === "string" && ACTION_LABEL_PATTERN.test(value) && !isMethod(value.toLowerCase());
}
