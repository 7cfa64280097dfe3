import type { CommitEvent } from "../api/responses.js";
import type { ContractState } from "../contract/ContractState.js";
import { compileGoverningModelSliced } from "../contract/compileGoverningModel.js";
import { acceptCommit, acceptGenesis, applyDelta, replayLog, stateView } from "../contract/engine.js";
import type { Limits } from "../contract/limits.js";
import { toLogEntry, toWireCommit } from "../contract/StoredCommit.js";
import type { Store } from "../store/Store.js";
import { type EngineSettings, engineContext } from "./engineContext.js";

/**
 * The commit events of stored commits `[from, to)`, each with the state right after it, for
 * subscribers that missed them. Starts from `base` (a private copy of a state at most `from`
 * commits long, e.g. the hub's cached one) or else replays the trusted store up to `from`,
 * then steps commit by commit (stored signers and receipt times, as replay does). Starting
 * from the cache keeps a live subscriber's gap fill proportional to the gap, not to the log.
 */
export async function* replayEvents(
  store: Store,
  contractId: string,
  from: number,
  to: number,
  settings: EngineSettings,
  base?: ContractState,
): AsyncGenerator<CommitEvent> {
  // A model met on the way compiles in the replay's own slices (stopped with it when nobody listens).
  const tick = settings.tick;
  const compileModel =
    tick !== undefined
      ? (text: string, limits: Limits) => compileGoverningModelSliced(text, limits, tick)
      : settings.compileModel;
  const replaySettings = { ...settings, assets: null, ...(compileModel ? { compileModel } : {}) };
  let state: ContractState | undefined = base !== undefined && base.length <= from ? base : undefined;
  const start = state?.length ?? from;
  if (state === undefined && from > 0) {
    state = await replayLog(contractId, store.readCommits(contractId, 0, from), {
      trusted: true,
      ...(settings.wasm ? { wasm: settings.wasm } : {}),
      ...(settings.limits ? { limits: settings.limits } : {}),
      ...(settings.checkRules ? { checkRules: settings.checkRules } : {}),
      ...(compileModel ? { compileModel } : {}),
      ...(settings.tick ? { tick: settings.tick } : {}),
      readLog: () => store.readCommits(contractId, 0, from),
    });
  }
  for await (const c of store.readCommits(contractId, start, to)) {
    // Long replays yield to other requests between commits (and stop when nobody listens).
    await settings.tick?.();
    const ctx = engineContext(store, contractId, c.index, [], replaySettings, {
      timestamp: c.timestamp,
      verifiedSigners: c.signers,
      trusted: true,
    });
    if (state === undefined) {
      state = (await acceptGenesis(contractId, toWireCommit(c), ctx)).state;
    } else {
      const { delta } = await acceptCommit(state, toWireCommit(c), ctx);
      applyDelta(state, delta);
    }
    if (c.index >= from) yield { contract_id: contractId, commit: toLogEntry(c), state: stateView(state) };
  }
}
