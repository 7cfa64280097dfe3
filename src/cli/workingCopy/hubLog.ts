/**
 * A working copy's watch on its hub's transparency log (docs/transparency.md). `clone` and
 * `init` pin the hub's log key in `.contract/log.json`; every `pull`, `push` and
 * `verify --remote` then checks the hub's current checkpoint against that key, its
 * consistency with the newest checkpoint kept there, and the inclusion of the working copy's
 * head, and keeps the new checkpoint only when all three hold. A rollback or a fork stops
 * the command (exit 1) with the hub, both sizes and the failed check.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkHubLog, type PinnedLogKey, type VerifiedCheckpoint } from "../../client/checkHubLog.js";
import type { HubClient } from "../../client/HubClient.js";
import { ContractError } from "../../contract/ContractError.js";
import type { WorkingCopy } from "./WorkingCopy.js";

/** `.contract/log.json`. */
export interface HubLogState extends PinnedLogKey {
  /** The newest checkpoint verified, or null before the first check. */
  checkpoint: VerifiedCheckpoint | null;
}

const file = (wc: WorkingCopy) => join(wc.dir, "log.json");

function read(wc: WorkingCopy): HubLogState | null {
  if (!existsSync(file(wc))) return null;
  try {
    const s = JSON.parse(readFileSync(file(wc), "utf8")) as HubLogState;
    if (typeof s.origin === "string" && typeof s.public_key === "string") return s;
  } catch {
    // Reported below.
  }
  throw new ContractError("CORRUPTED", `Cannot read ${file(wc)}`, { reason: "log_state" });
}

function write(wc: WorkingCopy, state: HubLogState): void {
  const tmp = `${file(wc)}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(tmp, file(wc));
}

/** The hub's log key, fetched to be pinned (at clone and init). */
export async function fetchLogKey(client: HubClient): Promise<PinnedLogKey> {
  const { origin, public_key } = await client.checkpointKey();
  return { origin, public_key };
}

/**
 * Checks the hub's log for the working copy (pinning the key first if this copy predates
 * pinning) and keeps the verified checkpoint. Returns it.
 */
export async function checkWorkingCopyLog(
  wc: WorkingCopy,
  client: HubClient,
  pinned?: PinnedLogKey,
): Promise<VerifiedCheckpoint> {
  const state = read(wc) ?? { ...(pinned ?? (await fetchLogKey(client))), checkpoint: null };
  const checkpoint = await checkHubLog(client, state, state.checkpoint, wc.origin().head);
  write(wc, { ...state, checkpoint });
  return checkpoint;
}
