/**
 * A proposal answer (`{proposal, commit?}` or `{proposals}`) whose proposals hold big values
 * (their operations' values, or their attestations': any JSON, megabytes of it), written in
 * the hub's shared slices (dataTextInSlices.ts) instead of by the one JSON.stringify the
 * REST serializer or the JSON-RPC envelope gives it: 15 MB of attestation strings were one
 * call, and an object of 80,000 members had its names listed at once. The text is the same.
 * Small answers, the common case, are left to the serializer: undefined here.
 */

import type { ProposalView } from "../api/responses.js";
import { isBigAttestations } from "../contract/attestationHashInSlices.js";
import { isBigCommitData } from "../contract/commitHashInSlices.js";
import { yieldSometimes } from "../lib/sharedSlice.js";
import { dataTextInSlices, textPieces } from "../store/dataTextInSlices.js";
import { JsonText } from "./JsonText.js";

export type ProposalAnswer = { proposal: ProposalView } | { proposals: ProposalView[] };

/** True when the proposal's operations or attestations hold values too big to write in one piece. */
export const isBigProposal = (p: ProposalView): boolean =>
  isBigCommitData(p.data) || (p.attestations !== undefined && isBigAttestations(p.attestations));

function holdsBig(answer: ProposalAnswer): boolean {
  return "proposal" in answer ? isBigProposal(answer.proposal) : answer.proposals.some(isBigProposal);
}

/** Characters of one piece of a REST body, as a piece of a page of the log (jsonChunks.ts): encoded on its own. */
const PIECE_CHARS = 64 * 1024;

/**
 * The text of `answer`, written in slices when the body is first read, in pieces of about
 * PIECE_CHARS, never cut inside a surrogate pair (each piece is encoded on its own).
 */
async function* pieces(answer: ProposalAnswer): AsyncGenerator<string> {
  yield* textPieces(await dataTextInSlices(answer, yieldSometimes), PIECE_CHARS);
}

/** The REST body's text in pieces, for logPageResponse to stream as it streams a page of the log; undefined when small. */
export function bigProposalPieces(answer: ProposalAnswer): AsyncIterable<string> | undefined {
  return holdsBig(answer) ? pieces(answer) : undefined;
}

/** The JSON-RPC result: its text written in slices (JsonText) when big, else the answer as it is. */
export async function rpcProposalAnswer(answer: ProposalAnswer): Promise<ProposalAnswer | JsonText> {
  if (!holdsBig(answer)) return answer;
  return new JsonText(await dataTextInSlices(answer, yieldSometimes));
}
