/**
 * A witness following a hub by polling it (docs/transparency.md): fetch the hub's current
 * checkpoint, and a consistency proof from the size this witness cosigned last, and put both
 * through the same checks as a submitted checkpoint. For hubs that do not submit their
 * checkpoints themselves; the cosigned checkpoint is then published on the witness's
 * monitoring route.
 */
import { formatAddCheckpoint } from "../tlog/addCheckpointBody.js";
import { readBoundedText } from "../tlog/readBoundedText.js";
import type { Witness } from "./Witness.js";

/** What one look at a hub found. */
export interface FollowResult {
  hub: string;
  /** `cosigned`: a checkpoint was checked and cosigned; `refused`: the witness refused it; `error`: the hub did not answer usably. */
  outcome: "cosigned" | "refused" | "error";
  origin?: string;
  size?: number;
  status?: number;
  message?: string;
}

/** A GET bounded in time and in the size of the answer read. */
async function fetchText(url: string): Promise<string> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const text = await readBoundedText(res);
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}: ${text.slice(0, 200)}`);
  return text;
}

/** Looks at `hubUrl` once: checks and cosigns its current checkpoint. */
export async function followHub(witness: Witness, hubUrl: string): Promise<FollowResult> {
  const hub = hubUrl.replace(/\/+$/, "");
  let note: string;
  let origin: string;
  let size: number;
  try {
    note = await fetchText(`${hub}/checkpoint`);
    const [first, second] = note.split("\n", 2);
    origin = first ?? "";
    size = Number(second);
  } catch (err) {
    return { hub, outcome: "error", message: (err as Error).message };
  }
  const known = witness.cosignedSize(origin);
  let proof: Buffer[] = [];
  if (known > 0 && Number.isSafeInteger(size) && size > known) {
    try {
      const body = JSON.parse(await fetchText(`${hub}/proofs/consistency?from=${known}&to=${size}`)) as {
        proof?: unknown;
      };
      if (!Array.isArray(body.proof) || !body.proof.every((h) => typeof h === "string" && /^[0-9a-f]{64}$/.test(h))) {
        throw new Error("the consistency proof is not a list of hex hashes");
      }
      proof = (body.proof as string[]).map((h) => Buffer.from(h, "hex"));
    } catch (err) {
      return { hub, outcome: "error", origin, size, message: (err as Error).message };
    }
  }
  // Through the wire form, so a followed hub is held to exactly what a submitted checkpoint is.
  const answer = witness.addText(formatAddCheckpoint({ oldSize: known, proof, note }));
  if (answer.status === 200) return { hub, outcome: "cosigned", origin, size };
  return { hub, outcome: "refused", origin, size, status: answer.status, message: answer.message };
}
