import { stateView } from "../contract/engine.js";
import { toLogEntry } from "../contract/StoredCommit.js";
import { type Cli, report, runCommand, UsageError } from "./cliContext.js";
import type { Io } from "./Io.js";
import { clientFor, type HubFlags, hubUrl, readingKey } from "./workingCopy/hubAccess.js";
import { stateOf } from "./workingCopy/localLog.js";
import { fastForward, fetchRemote } from "./workingCopy/sync.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

/**
 * `contract-hub reset --hard origin [--offline]`: the way out of a divergence. Drops the
 * local commits the hub does not have (printed, so they can be made again), then pulls to
 * the hub's head unless --offline.
 */
export function resetCommand(
  target: string | undefined,
  opts: HubFlags & { hard?: boolean; offline?: boolean },
  io: Io,
): Promise<number> {
  return runCommand(io, opts, "reset", async (cli: Cli) => {
    if (!opts.hard) throw new UsageError("reset drops local commits: say so with --hard (reset --hard origin)");
    if ((target ?? "origin") !== "origin")
      throw new UsageError(`unknown target ${JSON.stringify(target)}: only origin`);
    const wc = WorkingCopy.find(cli.cwd);
    const origin = wc.origin();
    const local = wc.readCommits();
    const dropped = local.slice(origin.length).map(toLogEntry);
    wc.truncate(origin.length);
    let pulled = 0;
    let state = await stateOf(wc.config.contract_id, local.slice(0, origin.length));
    if (!opts.offline) {
      const client = clientFor(hubUrl(cli, opts.hub, wc), readingKey(cli, opts.key, wc));
      const outcome = await fastForward(wc, (await fetchRemote(client, wc)).commits);
      pulled = outcome.pulled.length;
      state = outcome.state;
    }
    const view = stateView(state);
    report(cli, { contract_id: wc.config.contract_id, dropped, pulled, head: state.head, state: view }, () => [
      `Dropped ${dropped.length} local commit(s)${dropped.map((e) => `\n  ${e.hash.slice(0, 12)} ${e.method} ${(e.action_labels ?? []).join(" ")}`).join("")}`,
      `Pulled ${pulled} commit(s); head ${state.head.slice(0, 12)}, state ${view.current_state || "(no model)"}`,
    ]);
    return undefined;
  });
}
