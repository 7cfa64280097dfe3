import { stateView } from "../contract/engine.js";
import { toLogEntry } from "../contract/StoredCommit.js";
import { type Cli, report, runCommand } from "./cliContext.js";
import { count } from "./count.js";
import { shortHash } from "./hashPrefix.js";
import type { Io } from "./Io.js";
import { clientFor, type HubFlags, hubUrl, readingKey } from "./workingCopy/hubAccess.js";
import { checkWorkingCopyLog } from "./workingCopy/hubLog.js";
import { fastForward, fetchRemote } from "./workingCopy/sync.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

/**
 * `contract-hub pull`: fast-forwards to the hub's head after validating its new commits
 * locally. Refuses (exit 1, CONFLICT `diverged`) when local unpushed commits and new hub
 * commits both follow the same commit; see `reset --hard origin`.
 */
export function pullCommand(opts: HubFlags, io: Io): Promise<number> {
  return runCommand(io, opts, "pull", async (cli: Cli) => {
    const wc = WorkingCopy.find(cli.cwd);
    await wc.lock(cli);
    const client = clientFor(cli, hubUrl(cli, opts.hub, wc), readingKey(cli, opts.key, wc));
    // Checked first, so a hub that rolled back or forked is named as such, not as a stranger.
    await checkWorkingCopyLog(wc, client);
    const remote = await fetchRemote(client, wc);
    const outcome = await fastForward(wc, remote.commits);
    const checkpoint = await checkWorkingCopyLog(wc, client);
    const doc = {
      contract_id: wc.config.contract_id,
      pulled: outcome.pulled.length,
      commits: outcome.pulled.map(toLogEntry),
      head: outcome.head,
      ahead: outcome.ahead,
      state: stateView(outcome.state),
      log_size: checkpoint.size,
    };
    report(cli, doc, () => {
      const lines = [
        outcome.pulled.length === 0
          ? "Already up to date"
          : `Pulled ${count(outcome.pulled.length, "commit")}; head ${shortHash(outcome.head)}`,
        `State ${doc.state.current_state || "(no model)"}`,
      ];
      if (outcome.ahead > 0) lines.push(`${count(outcome.ahead, "local commit")} not pushed`);
      return lines;
    });
    return undefined;
  });
}
