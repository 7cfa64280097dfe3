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
  /** `timeout`: the hub did not answer one request within `timeout_ms` (an `error`). */
  reason?: "timeout";
  timeout_ms?: number;
}

/**
 * How long one request to a followed hub waits when the command line names no bound: a
 * checkpoint or a proof is a few KiB, so a hub that has not answered in 10 s is not going to,
 * and one silent hub should not hold back the others' looks for long.
 */
export const FOLLOW_TIMEOUT_MS = 10_000;

export interface FollowOptions {
  /** The most one request waits, in ms, its answer read included; undefined: no limit. */
  timeoutMs: number | undefined;
  /** Cancels the look (the witness is stopping): its request is aborted and its connection closed. */
  signal?: AbortSignal;
}

/** A request to the hub given up on after `ms`: reported as an `error` with `reason: "timeout"`. */
class FollowTimeout extends Error {
  constructor(
    url: string,
    readonly ms: number,
  ) {
    super(`GET ${url}: no answer within ${ms} ms`);
  }
}

/** A GET bounded in time (its answer read included) and in the size of the answer read. */
async function fetchText(url: string, opts: FollowOptions): Promise<string> {
  const bound = opts.timeoutMs === undefined ? undefined : AbortSignal.timeout(opts.timeoutMs);
  const signals = [bound, opts.signal].filter((s): s is AbortSignal => s !== undefined);
  try {
    const res = await fetch(url, signals.length === 0 ? {} : { signal: AbortSignal.any(signals) });
    const text = await readBoundedText(res);
    if (!res.ok) throw new Error(`GET ${url} answered ${res.status}: ${text.slice(0, 200)}`);
    return text;
  } catch (err) {
    if (bound?.aborted && opts.timeoutMs !== undefined) throw new FollowTimeout(url, opts.timeoutMs);
    throw err;
  }
}

/** What a failed request makes of the look: an `error`, with the bound when it was the timeout. */
function failed(hub: string, err: unknown, seen: { origin?: string; size?: number } = {}): FollowResult {
  const message = (err as Error).message;
  if (err instanceof FollowTimeout)
    return { hub, outcome: "error", ...seen, message, reason: "timeout", timeout_ms: err.ms };
  return { hub, outcome: "error", ...seen, message };
}

/**
 * Looks at `hubUrl` once: checks and cosigns its current checkpoint. Each request waits at
 * most `opts.timeoutMs` (the command line's `--timeout`), so a hub that accepts a request and
 * never answers costs this look that long and is an `error`, not a look that never ends.
 */
export async function followHub(
  witness: Witness,
  hubUrl: string,
  opts: FollowOptions = { timeoutMs: FOLLOW_TIMEOUT_MS },
): Promise<FollowResult> {
  const hub = hubUrl.replace(/\/+$/, "");
  let note: string;
  let origin: string;
  let size: number;
  try {
    note = await fetchText(`${hub}/checkpoint`, opts);
    const [first, second] = note.split("\n", 2);
    origin = first ?? "";
    size = Number(second);
  } catch (err) {
    return failed(hub, err);
  }
  const known = witness.cosignedSize(origin);
  let proof: Buffer[] = [];
  if (known > 0 && Number.isSafeInteger(size) && size > known) {
    try {
      const body = JSON.parse(await fetchText(`${hub}/proofs/consistency?from=${known}&to=${size}`, opts)) as {
        proof?: unknown;
      };
      if (!Array.isArray(body.proof) || !body.proof.every((h) => typeof h === "string" && /^[0-9a-f]{64}$/.test(h))) {
        throw new Error("the consistency proof is not a list of hex hashes");
      }
      proof = (body.proof as string[]).map((h) => Buffer.from(h, "hex"));
    } catch (err) {
      return failed(hub, err, { origin, size });
    }
  }
  // Through the wire form, so a followed hub is held to exactly what a submitted checkpoint is.
  const answer = witness.addText(formatAddCheckpoint({ oldSize: known, proof, note }));
  if (answer.status === 200) return { hub, outcome: "cosigned", origin, size };
  return { hub, outcome: "refused", origin, size, status: answer.status, message: answer.message };
}
