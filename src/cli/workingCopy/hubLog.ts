/**
 * A working copy's watch on its hub's transparency log (docs/transparency.md). `clone` and
 * `init` pin the hub's log key in `.contract/log.json`; every `pull`, `push` and
 * `verify --remote` then checks the hub's current checkpoint against that key, its
 * consistency with the newest checkpoint kept there, and the inclusion of the working copy's
 * head (at the leaf the hub gave it, when the copy kept that), and keeps the new checkpoint
 * only when all three hold. A rollback or a fork stops
 * the command (exit 1) with the hub, both sizes and the failed check.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkHubLog, type PinnedLogKey, type VerifiedCheckpoint } from "../../client/checkHubLog.js";
import type { HubClient } from "../../client/HubClient.js";
import { ContractError } from "../../contract/ContractError.js";
import { isLowerHex } from "../../contract/hex.js";
import { parseWitnessVerifierKey } from "../../tlog/cosignature.js";
import { UsageError } from "../cliContext.js";
import { writeFileAtomic } from "../writeFileAtomic.js";
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
    if (typeof s.origin === "string" && typeof s.public_key === "string" && wellFormed(s)) return s;
  } catch {
    // Reported below.
  }
  throw new ContractError("CORRUPTED", `Cannot read ${file(wc)}`, { reason: "log_state" });
}

/** The kept checkpoint and the witness pins have their shapes (a hand-edited file may not). */
function wellFormed(s: HubLogState): boolean {
  const c = s.checkpoint as unknown;
  const checkpoint =
    c === null ||
    (typeof c === "object" &&
      Number.isSafeInteger((c as VerifiedCheckpoint).size) &&
      (c as VerifiedCheckpoint).size >= 0 &&
      isLowerHex((c as VerifiedCheckpoint).root, 32) &&
      typeof (c as VerifiedCheckpoint).note === "string");
  const witnesses =
    s.witnesses === undefined || (Array.isArray(s.witnesses) && s.witnesses.every((w) => typeof w === "string"));
  const quorum = s.witness_quorum === undefined || Number.isSafeInteger(s.witness_quorum);
  return checkpoint && witnesses && quorum;
}

function write(wc: WorkingCopy, state: HubLogState): void {
  writeFileAtomic(file(wc), `${JSON.stringify(state, null, 2)}\n`);
}

/** `--witness <verifier key>` (repeatable) and `--witness-quorum <k>` of `init` and `clone`. */
export interface WitnessPinFlags {
  witness?: string[];
  witnessQuorum?: string;
}

/**
 * The witnesses to pin: each verifier key checked, the quorum 1 … the number of distinct
 * witness keys (default: all of them; one key pinned under two names is one witness).
 */
function witnessPins(flags: WitnessPinFlags): Pick<PinnedLogKey, "witnesses" | "witness_quorum"> {
  const keys = flags.witness ?? [];
  if (keys.length === 0) {
    if (flags.witnessQuorum !== undefined) throw new UsageError("--witness-quorum needs at least one --witness");
    return {};
  }
  const distinct = new Set<string>();
  for (const key of keys) {
    try {
      distinct.add(parseWitnessVerifierKey(key).publicKey.toString("hex"));
    } catch (err) {
      throw new UsageError(`--witness ${key}: ${(err as Error).message}`);
    }
  }
  const quorum = flags.witnessQuorum === undefined ? distinct.size : Number(flags.witnessQuorum);
  if (!Number.isInteger(quorum) || quorum < 1 || quorum > distinct.size) {
    throw new UsageError(`--witness-quorum must be from 1 to ${distinct.size}, not ${flags.witnessQuorum}`);
  }
  return { witnesses: keys, witness_quorum: quorum };
}

/** The hub's log key, fetched to be pinned (at clone and init), with the witnesses the user requires. */
export async function fetchLogKey(client: HubClient, flags: WitnessPinFlags = {}): Promise<PinnedLogKey> {
  const pins = witnessPins(flags);
  const { origin, public_key } = await client.checkpointKey();
  return { origin, public_key, ...pins };
}

/**
 * Before init or clone write anything (init: before the contract is created on the hub), the
 * hub's checkpoint must carry the cosignatures the user requires with --witness: a hub that
 * cannot show them would otherwise get a new contract, or leave a working copy pinned to
 * witnesses that every later pull and push refuses, after a command that exited 1.
 */
export async function checkWitnessesFirst(client: HubClient, pinned: PinnedLogKey): Promise<void> {
  if ((pinned.witnesses ?? []).length === 0) return;
  await checkHubLog(client, pinned, null, null);
}

/** How long a command waits for a cosigned checkpoint that covers the head it just pushed. */
const HEAD_WAIT_MS = 10_000;

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
  const origin = wc.origin();
  // The leaf the hub gave the head when it was pulled or pushed: its answers now must agree.
  const headLeafIndex = wc.leafIndexOf(origin.length - 1, origin.head);
  const checkpoint = await checkHubLog(client, state, state.checkpoint, origin.head, {
    headWaitMs: HEAD_WAIT_MS,
    ...(headLeafIndex === undefined ? {} : { headLeafIndex }),
  });
  write(wc, { ...state, checkpoint });
  return checkpoint;
}
