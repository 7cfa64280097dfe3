import { pullAll } from "../client/sync.js";
import { isContractError } from "../contract/ContractError.js";
import type { ContractState } from "../contract/ContractState.js";
import { stateView } from "../contract/engine.js";
import { type StoredCommit, toLogEntry } from "../contract/StoredCommit.js";
import { type Cli, report, runCommand, UsageError } from "./cliContext.js";
import { count } from "./count.js";
import { shortHash } from "./hashPrefix.js";
import type { Io } from "./Io.js";
import { KeyStore } from "./KeyStore.js";
import { logLine } from "./logCommand.js";
import { clientFor, type HubFlags, hubUrl, readingKey } from "./workingCopy/hubAccess.js";
import { acceptPulled, stateOf } from "./workingCopy/localLog.js";
import { fastForward, fetchRemote } from "./workingCopy/sync.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

/**
 * `contract-hub reset --hard origin [--offline]`: the way out of a divergence. Drops the
 * local commits the hub does not have (printed, so they can be made again), then pulls to
 * the hub's head unless --offline. When the local log itself is damaged (a hand-edited or
 * truncated file), it is rebuilt from the hub: the whole log pulled and verified again,
 * every local commit file replaced (`rebuilt: true`).
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
    await wc.lock(cli);
    let local: StoredCommit[];
    let origin: { length: number };
    let state: ContractState;
    try {
      origin = wc.origin();
      local = wc.readCommits();
      state = await stateOf(wc.config.contract_id, local.slice(0, origin.length));
    } catch (err) {
      if (!isContractError(err, "CORRUPTED") || opts.offline) throw err;
      return rebuild(cli, wc, opts);
    }
    const dropped = local.slice(origin.length).map(toLogEntry);
    wc.truncate(origin.length);
    let pulled = 0;
    if (!opts.offline) {
      const client = clientFor(cli, hubUrl(cli, opts.hub, wc), readingKey(cli, opts.key, wc));
      const outcome = await fastForward(wc, (await fetchRemote(client, wc)).commits);
      pulled = outcome.pulled.length;
      state = outcome.state;
    }
    const view = stateView(state);
    const doc = { contract_id: wc.config.contract_id, dropped, rebuilt: false, pulled, head: state.head, state: view };
    const nameOf = KeyStore.of(cli.env).namer();
    report(cli, doc, () => [
      `Dropped ${count(dropped.length, "local commit")}${dropped.map((e) => `\n${logLine(e, "", nameOf)}`).join("")}`,
      `Pulled ${count(pulled, "commit")}; head ${shortHash(state.head)}, state ${view.current_state || "(no model)"}`,
    ]);
    return undefined;
  });
}

/** Replaces a damaged local log with the hub's, verified as `clone` verifies it. */
async function rebuild(cli: Cli, wc: WorkingCopy, opts: HubFlags): Promise<undefined> {
  const id = wc.config.contract_id;
  const client = clientFor(cli, hubUrl(cli, opts.hub, wc), readingKey(cli, opts.key, wc));
  const { commits } = await pullAll(client, id);
  const { log, state } = await acceptPulled(id, [], commits);
  const replaced = wc.commitFilesCount();
  wc.replaceLog(log);
  const view = stateView(state);
  const doc = { contract_id: id, dropped: [], rebuilt: true, pulled: log.length, head: state.head, state: view };
  report(cli, doc, () => [
    `The local log was damaged: replaced its ${count(replaced, "file")} with the hub's ${count(log.length, "commit")}, verified`,
    `Head ${shortHash(state.head)}, state ${view.current_state || "(no model)"}`,
  ]);
  return undefined;
}
