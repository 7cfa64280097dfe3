import { ContractError, isContractError } from "../contract/ContractError.js";
import { stateView } from "../contract/engine.js";
import { type Cli, report, runCommand } from "./cliContext.js";
import { count } from "./count.js";
import { shortHash } from "./hashPrefix.js";
import type { Io } from "./Io.js";
import { actionText } from "./nextActions.js";
import { clientFor, type HubFlags, hubUrl, readingKey } from "./workingCopy/hubAccess.js";
import { stateOf } from "./workingCopy/localLog.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

/**
 * `contract-hub status [--offline]`: the contract, its local head and state, the actions that
 * may follow (with their required signers), and how far the working copy is ahead of and
 * behind the hub (`behind` asks the hub for its head; null with --offline).
 */
export function statusCommand(opts: HubFlags & { offline?: boolean }, io: Io): Promise<number> {
  return runCommand(io, opts, "status", async (cli: Cli) => {
    const wc = WorkingCopy.find(cli.cwd);
    const id = wc.config.contract_id;
    const local = wc.readCommits();
    const origin = wc.origin();
    const state = await stateOf(id, local);
    const view = stateView(state);
    const ahead = local.length - origin.length;
    let behind: number | null = null;
    let hubHead: string | null = null;
    // The hub this run reports: the one it asked (--hub overrides the remembered one for the
    // run), else, offline, the remembered one.
    let asked = wc.config.hub;
    if (!opts.offline) {
      asked = hubUrl(cli, opts.hub, wc);
      const hub = await clientFor(cli, asked, readingKey(cli, opts.key, wc))
        .getState(id)
        .catch((err: unknown) => {
          if (!isContractError(err, "UNAVAILABLE")) throw err;
          // Everything but `behind` is known without the hub: say how to see it.
          const hint = "`contract-hub status --offline` shows the working copy without asking the hub.";
          throw new ContractError(err.code, err.message, { ...err.details, hint }, { cause: err });
        });
      hubHead = hub.head;
      // The hub's head is a local commit: nothing to pull. Otherwise it holds commits past the origin.
      behind = local.some((c) => c.hash === hub.head) ? 0 : Math.max(0, hub.commit_count - origin.length);
    }
    const doc = {
      contract_id: id,
      hub: asked,
      key: wc.config.key ?? null,
      root: wc.root,
      head: state.head,
      commit_count: state.length,
      current_state: view.current_state,
      current_states: view.current_states,
      valid_actions: view.valid_actions,
      ahead,
      behind,
      hub_head: hubHead,
    };
    report(cli, doc, () => [
      `Contract ${id} at ${asked}`,
      `Head     ${shortHash(state.head)} (${count(state.length, "commit")})`,
      `State    ${view.current_state || "(no model)"}`,
      ...(view.valid_actions.length === 0
        ? ["Next     -"]
        : view.valid_actions.map((a, i) => `${i === 0 ? "Next    " : "        "} ${actionText(a)} -> ${a.to}`)),
      `Sync     ${ahead} ahead, ${behind === null ? "? (offline)" : behind} behind`,
    ]);
    return undefined;
  });
}
