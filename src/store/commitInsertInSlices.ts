import { isBigAttestations } from "../contract/attestationHashInSlices.js";
import { isBigCommitData } from "../contract/commitHashInSlices.js";
import type { StoredCommit } from "../contract/StoredCommit.js";
import { yieldSometimes } from "../lib/sharedSlice.js";
import { dataTextInSlices } from "./dataTextInSlices.js";
import { type CommitInsert, commitInsert } from "./sqlite/commitRows.js";

/**
 * Whether a commit's values are big enough that its row is written in the shared slices: its
 * operations' values, or its attestations', which are any JSON (a 15 MB attestation value
 * was one JSON.stringify of the `attestations` column).
 */
export function isBigStoredCommit(c: StoredCommit): boolean {
  return isBigCommitData(c.data) || (c.attestations !== undefined && isBigAttestations(c.attestations));
}

/** commitInsert(c) with its big JSON columns written in the hub's shared slices (dataTextInSlices.ts), the same text. */
export async function commitInsertInSlices(c: StoredCommit): Promise<CommitInsert> {
  const data = isBigCommitData(c.data) ? await dataTextInSlices(c.data, yieldSometimes) : undefined;
  const attestations =
    c.attestations !== undefined && isBigAttestations(c.attestations)
      ? await dataTextInSlices(c.attestations, yieldSometimes)
      : undefined;
  return commitInsert(c, data, attestations);
}
