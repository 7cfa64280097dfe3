import type { Attestation, LogEntry, Operation, PulledCommit, WireCommit } from "./Commit.js";
import { IDENTITY_PREFIX } from "./hex.js";

/**
 * A commit as the hub stores it: the wire commit plus what the hub decided at receipt
 * (position, receipt time, verified signers). Replaying stored commits reproduces the state.
 */
export interface StoredCommit {
  index: number;
  hash: string;
  parent: string | null;
  data: Operation[];
  signatures: Record<string, string>;
  attestations?: Attestation[];
  /** Hub receipt time, integer seconds (docs/protocol.md: the hub is the notary). */
  timestamp: number;
  /** Verified signer keys, lower-case hex, in the order of `signatures`. */
  signers: string[];
  /**
   * Position in the hub's Merkle tree of every stored commit (docs/transparency.md), set by
   * the store when it appends the commit; absent only before then.
   */
  leafIndex?: number;
}

/** `{leaf_index}` of a commit the store has numbered (docs/transparency.md), else nothing. */
export function leafOf(c: StoredCommit): { leaf_index?: number } {
  return c.leafIndex === undefined ? {} : { leaf_index: c.leafIndex };
}

/** The action labels of a commit: the values of its `action` operations, in order. */
export function actionLabelsOf(data: readonly Operation[]): string[] {
  const labels: string[] = [];
  for (const op of data) if (op.method === "action" && typeof op.value === "string") labels.push(op.value);
  return labels;
}

/** The log entry of docs/api.md / docs/protocol.md, built from the first non-action operation. */
export function toLogEntry(c: StoredCommit): LogEntry {
  const first = c.data.find((op) => op.method !== "action") ?? c.data[0];
  const labels = actionLabelsOf(c.data);
  const entry: LogEntry = {
    index: c.index,
    hash: c.hash,
    method: first?.method ?? "action",
    signers: c.signers.map((k) => IDENTITY_PREFIX + k),
    timestamp: c.timestamp,
  };
  if (first?.method !== "genesis") {
    if (first?.path !== undefined) entry.path = first.path;
    if (first?.value !== undefined) entry.value = first.value;
    if (c.signers[0] !== undefined) entry.signer = IDENTITY_PREFIX + c.signers[0];
  }
  if (labels.length > 0) entry.action_labels = labels;
  if (c.leafIndex !== undefined) entry.leaf_index = c.leafIndex;
  return entry;
}

/** The push format of a stored commit. */
export function toWireCommit(c: StoredCommit): WireCommit {
  const head: WireCommit["head"] = { parent: c.parent, signatures: c.signatures };
  if (c.attestations !== undefined && c.attestations.length > 0) head.attestations = c.attestations;
  return { hash: c.hash, parent: c.parent, data: c.data, head };
}

/** The pull format: push format plus `body` and `timestamp`. */
export function toPulledCommit(c: StoredCommit): PulledCommit {
  return { ...toWireCommit(c), body: c.data, timestamp: c.timestamp, ...leafOf(c) };
}
