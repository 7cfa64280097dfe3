/** How the hub derives a contract's state from its store (docs/storage.md: the store is trusted, its damage is not served). */

import type { ContractState } from "../contract/ContractState.js";
import { acceptCommit, applyDelta, replayLog } from "../contract/engine.js";
import { toWireCommit } from "../contract/StoredCommit.js";
import { SNAPSHOT_FORMAT, snapshotDigest, snapshotText, stateFromSnapshot } from "../contract/stateSnapshot.js";
import type { ContractRecord, StateSnapshot, Store } from "../store/Store.js";
import { decodedCommits } from "./corruptionChecks.js";
import { type EngineSettings, engineContext } from "./engineContext.js";
import { prehashedCommits } from "./prehashedCommits.js";

/** A trusted replay of the whole stored log; a damaged log is CORRUPTED naming the commit (corruptionChecks.ts). */
export function replayStored(store: Store, record: ContractRecord, settings: EngineSettings): Promise<ContractState> {
  const { id, length } = record;
  return replayLog(id, decodedCommits(prehashedCommits(id, store.readCommits(id, 0, length), settings.tick)), {
    trusted: true,
    wasm: settings.wasm ?? null,
    ...(settings.limits ? { limits: settings.limits } : {}),
    ...(settings.checkRules ? { checkRules: settings.checkRules } : {}),
    ...(settings.compileModel ? { compileModel: settings.compileModel } : {}),
    ...(settings.tick ? { tick: settings.tick } : {}),
    readLog: () => store.readCommits(id, 0, length),
  });
}

/**
 * A copy of `cached` moved through the commits stored after it (another process appended
 * them), checked as a trusted replay checks them; throws if they do not follow it. Costs the
 * new commits only, where a replay would cost the whole log.
 */
export async function stepForward(
  store: Store,
  cached: ContractState,
  record: ContractRecord,
  settings: EngineSettings,
): Promise<ContractState> {
  const state = cached.clone();
  const local = { ...settings, assets: null };
  const commits = prehashedCommits(record.id, store.readCommits(record.id, state.length, record.length), settings.tick);
  for await (const c of decodedCommits(commits, state.length)) {
    await settings.tick?.();
    const ctx = engineContext(store, record.id, c.index, [], local, {
      timestamp: c.timestamp,
      verifiedSigners: c.signers,
      trusted: true,
    });
    const { delta } = await acceptCommit(state, toWireCommit(c), ctx);
    applyDelta(state, delta);
  }
  return state;
}

/**
 * The state at the stored head from the contract's newest snapshot and the commits after it
 * (docs/storage.md), or null when there is no snapshot this hub can use: none, another
 * format, a digest that does not match its text (damage), a text that does not load, or a
 * head that is not the log's commit at that position. The tail is stepped through as a
 * trusted replay checks it; the caller replays the whole log when this returns null or throws.
 */
export async function loadFromSnapshot(
  store: Store,
  record: ContractRecord,
  settings: EngineSettings,
): Promise<ContractState | null> {
  const snap = await store.readSnapshot(record.id);
  if (snap === null || snap.format !== SNAPSHOT_FORMAT || snap.length > record.length || snap.length < 1) return null;
  if (snapshotDigest(snap.state) !== snap.digest) return null;
  let state: ContractState;
  try {
    state = await stateFromSnapshot(snap.state, settings.limits, settings.compileModel);
  } catch {
    return null;
  }
  if (state.contractId !== record.id || state.length !== snap.length || state.head !== snap.head) return null;
  const at = await store.getCommitAt(record.id, snap.length - 1);
  if (at === null || at.hash !== snap.head) return null;
  // The snapshot text does not hold the head's time; the head commit does.
  state.headTimestamp = at.timestamp;
  return stepForward(store, state, record, settings);
}

/** The snapshot row of `state` (its text, format and digest). */
export function snapshotOf(state: ContractState): StateSnapshot {
  const text = snapshotText(state);
  return {
    contractId: state.contractId,
    length: state.length,
    head: state.head,
    format: SNAPSHOT_FORMAT,
    state: text,
    digest: snapshotDigest(text),
  };
}
