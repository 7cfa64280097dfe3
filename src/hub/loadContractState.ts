/** How the hub derives a contract's state from its store (PROTOCOL.md §12: the store is trusted, its damage is not served). */

import type { ContractState } from "../contract/ContractState.js";
import { acceptCommit, applyDelta, replayLog } from "../contract/engine.js";
import { toWireCommit } from "../contract/StoredCommit.js";
import type { ContractRecord, Store } from "../store/Store.js";
import { decodedCommits } from "./corruptionChecks.js";
import { type EngineSettings, engineContext } from "./engineContext.js";

/** A trusted replay of the whole stored log; a damaged log is CORRUPTED naming the commit (corruptionChecks.ts). */
export function replayStored(store: Store, record: ContractRecord, settings: EngineSettings): Promise<ContractState> {
  const { id, length } = record;
  return replayLog(id, decodedCommits(store.readCommits(id, 0, length)), {
    trusted: true,
    wasm: settings.wasm ?? null,
    ...(settings.limits ? { limits: settings.limits } : {}),
    ...(settings.checkRules ? { checkRules: settings.checkRules } : {}),
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
  for await (const c of decodedCommits(store.readCommits(record.id, state.length, record.length), state.length)) {
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
