/**
 * The body of a witness's `POST /add-checkpoint` (C2SP tlog-witness, docs/transparency.md):
 *
 *     old <size the witness last cosigned>\n
 *     <base64 consistency proof hash>\n      (zero to 63 lines)
 *     \n
 *     <the checkpoint note, with its signatures>
 */

/** The most proof lines a request may carry (a tree of 2^63 leaves needs no more). */
export const MAX_PROOF_LINES = 63;

export interface AddCheckpointRequest {
  oldSize: number;
  proof: Buffer[];
  note: string;
}

/** The request body. */
export function formatAddCheckpoint(r: AddCheckpointRequest): string {
  return `old ${r.oldSize}\n${r.proof.map((p) => `${p.toString("base64")}\n`).join("")}\n${r.note}`;
}

/** Parses a request body; throws a RangeError naming what is malformed. */
export function parseAddCheckpoint(text: string): AddCheckpointRequest {
  const end = text.indexOf("\n\n");
  if (end < 0) throw new RangeError("the body must be the old size line, proof lines, a blank line and the checkpoint");
  const lines = text.slice(0, end).split("\n");
  const m = /^old (0|[1-9][0-9]{0,15})$/.exec(lines[0]!);
  if (m === null || !Number.isSafeInteger(Number(m[1]))) throw new RangeError("the first line must be `old <size>`");
  const proofLines = lines.slice(1);
  if (proofLines.length > MAX_PROOF_LINES) throw new RangeError(`more than ${MAX_PROOF_LINES} proof lines`);
  const proof = proofLines.map((line, i) => {
    const hash = Buffer.from(line, "base64");
    if (hash.length !== 32 || hash.toString("base64") !== line) {
      throw new RangeError(`proof line ${i + 1} is not a base64 SHA-256 hash`);
    }
    return hash;
  });
  return { oldSize: Number(m[1]), proof, note: text.slice(end + 2) };
}
