/**
 * docs/engine.md's example of checking a pulled log ("Replay and integrity"), as a library
 * user writes it against the package's entry points (here their sources), with the runner
 * of custom predicates passed in (`undefined`: the example without one).
 */
import { type HubClient, type PulledCommit, pullAll } from "../../src/client/index.js";
import { acceptCommit, acceptGenesis, applyDelta, type StoredCommit, stateView } from "../../src/contract/engine.js";
import type { WasmRunner } from "../../src/predicates/index.js";

export async function checkPulledLog(client: HubClient, id: string, wasm: WasmRunner | undefined) {
  const { commits } = await pullAll(client, id); // every page, from genesis
  const wire = (c: PulledCommit) => ({ hash: c.hash, parent: c.parent, data: c.data, head: c.head });
  const log: StoredCommit[] = []; // stored forms, for MODEL replays and hash-anchored rules
  const ctx = (c: PulledCommit) => ({
    timestamp: c.timestamp, // the hub's receipt time decides deadlines
    replay: true, // a log the hub accepted: a predicate that did not finish is "try again", not damage
    wasm, // runs custom predicates
    readLog: () => log,
    commitIndex: (hash: string) => {
      const i = log.findIndex((s) => s.hash === hash);
      return i < 0 ? null : i;
    },
  });
  const genesis = await acceptGenesis(id, wire(commits[0]!), ctx(commits[0]!));
  const state = genesis.state;
  log.push(genesis.stored);
  for (const c of commits.slice(1)) {
    const { stored, delta } = await acceptCommit(state, wire(c), ctx(c));
    applyDelta(state, delta);
    log.push(stored);
  }
  return stateView(state); // current_state, valid_actions, …
}
