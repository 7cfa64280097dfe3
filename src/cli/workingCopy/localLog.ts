/**
 * The engine over a working copy's log: the same acceptGenesis/acceptCommit/replayLog the hub
 * runs, with the local log as `readLog`, so a commit refused here is refused there for the
 * same reason (cross-contract asset facts and the hub's receipt time excepted: docs/protocol.md).
 */
import type { PulledCommit, WireCommit } from "../../contract/Commit.js";
import { isContractError } from "../../contract/ContractError.js";
import type { ContractState } from "../../contract/ContractState.js";
import { acceptCommit, acceptGenesis, applyDelta, replayLog } from "../../contract/engine.js";
import type { StoredCommit } from "../../contract/StoredCommit.js";
import { localWasmRunner } from "../../predicates/wasmRunner.js";
import { withRepair } from "./WorkingCopy.js";

/** The state at the end of `commits`. `trusted` takes the stored signers (the working copy's own files). */
export async function stateOf(
  contractId: string,
  commits: readonly StoredCommit[],
  trusted = true,
): Promise<ContractState> {
  try {
    return await replayLog(contractId, commits, { trusted, wasm: localWasmRunner() });
  } catch (err) {
    throw isContractError(err, "CORRUPTED") ? withRepair(err) : err;
  }
}

/** Seconds since the epoch: the local stand-in for the hub's receipt time. */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * The time a local commit after `state` is judged at: as the hub stamps it, this machine's
 * clock but never before the head's time (docs/protocol.md, "Commit timestamps"). A head the
 * hub stamped by a clock ahead of this one would otherwise let a commit pass a `before`
 * deadline here that the hub refuses on push.
 */
export function localStamp(state: ContractState): number {
  return Math.max(nowSeconds(), state.headTimestamp);
}

/**
 * Validates `commit` as the next commit after `log` (whose state is `state`), moving `state`
 * forward and appending the stored form to `log`. Throws the engine's ContractError. `replay`:
 * the commit comes from the hub's log (a pull), so a refusal means a damaged log (EngineContext).
 */
export async function acceptNext(
  state: ContractState,
  log: StoredCommit[],
  commit: WireCommit,
  timestamp: number,
  replay = false,
): Promise<StoredCommit> {
  const byHash = new Map(log.map((c) => [c.hash, c.index]));
  const { stored, delta } = await acceptCommit(state, commit, {
    timestamp,
    ...(replay ? { replay } : {}),
    wasm: localWasmRunner(),
    readLog: () => log,
    commitIndex: (hash) => byHash.get(hash) ?? null,
  });
  applyDelta(state, delta);
  log.push(stored);
  return stored;
}

/**
 * Validates commits from the hub (untrusted: hashes, links, signatures) on top of `log`;
 * returns the state after them and the stored forms, which keep the hub's receipt time and
 * leaf index. Nothing is written here.
 */
export async function acceptPulled(
  contractId: string,
  base: readonly StoredCommit[],
  pulled: readonly PulledCommit[],
): Promise<{ state: ContractState; log: StoredCommit[] }> {
  const log = [...base];
  let rest = pulled;
  let state: ContractState;
  if (log.length === 0) {
    const first = pulled[0];
    if (first === undefined) throw new Error("acceptPulled: no commits");
    const genesis = await acceptGenesis(contractId, wireOf(first), {
      timestamp: first.timestamp,
      wasm: localWasmRunner(),
    });
    state = genesis.state;
    log.push(withLeaf(genesis.stored, first));
    rest = pulled.slice(1);
  } else {
    state = await stateOf(contractId, log);
  }
  for (const c of rest) withLeaf(await acceptNext(state, log, wireOf(c), c.timestamp, true), c);
  return { state, log };
}

/**
 * `stored` with the leaf the hub gave the pulled commit `c` in its transparency log, when it
 * gave one: kept so that a later check of the log holds the hub to it (docs/transparency.md).
 */
function withLeaf(stored: StoredCommit, c: PulledCommit): StoredCommit {
  const leaf = c.leaf_index;
  if (typeof leaf === "number" && Number.isSafeInteger(leaf) && leaf >= 0) stored.leafIndex = leaf;
  return stored;
}

/** The push format of a pulled commit (drops `body` and `timestamp`). */
export function wireOf(c: PulledCommit): WireCommit {
  const head: WireCommit["head"] = { parent: c.head?.parent ?? c.parent, signatures: c.head?.signatures ?? {} };
  if (c.head?.attestations !== undefined) head.attestations = c.head.attestations;
  return { hash: c.hash, parent: c.parent, data: c.data, head };
}
