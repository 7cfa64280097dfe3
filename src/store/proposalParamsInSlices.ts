import { isBigAttestations } from "../contract/attestationHashInSlices.js";
import { isBigCommitData } from "../contract/commitHashInSlices.js";
import { yieldSometimes } from "../lib/sharedSlice.js";
import { dataTextInSlices } from "./dataTextInSlices.js";
import { type ProposalRecord, proposalParams } from "./ProposalRecord.js";

/**
 * proposalParams(p) with its big JSON columns (its operations' values, its attestations')
 * written in the hub's shared slices (dataTextInSlices.ts), the same text, as a commit's row
 * is (commitInsertInSlices.ts). The record went to the SQLite writer thread as it was, and
 * the structured clone of an attestation holding an object of 80,000 members was one piece
 * of the event loop; its text crosses as a string. PostgreSQL gets the same texts as plain
 * parameters. A small proposal, the common case, is written at once, with no await.
 */
export function proposalParamsInSlices(p: ProposalRecord): unknown[] | Promise<unknown[]> {
  const bigData = isBigCommitData(p.data);
  const bigAttestations = p.attestations !== undefined && isBigAttestations(p.attestations);
  if (!bigData && !bigAttestations) return proposalParams(p);
  return (async () => {
    const data = bigData ? await dataTextInSlices(p.data, yieldSometimes) : undefined;
    const attestations = bigAttestations ? await dataTextInSlices(p.attestations, yieldSometimes) : undefined;
    return proposalParams(p, data, attestations);
  })();
}
