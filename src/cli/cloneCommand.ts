import { resolve } from "node:path";
import { pullAll } from "../client/sync.js";
import { isContractId } from "../contract/Commit.js";
import { stateView } from "../contract/engine.js";
import { type Cli, report, runCommand, UsageError } from "./cliContext.js";
import { count } from "./count.js";
import type { Io } from "./Io.js";
import { stateLine } from "./nextActions.js";
import { checkUrl, clientFor, type HubFlags, readingKey } from "./workingCopy/hubAccess.js";
import { checkWitnessesFirst, checkWorkingCopyLog, fetchLogKey, type WitnessPinFlags } from "./workingCopy/hubLog.js";
import { acceptPulled } from "./workingCopy/localLog.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

/** Splits `<hub-url>/<contract_id>` (also `<hub-url>/contracts/<contract_id>`). */
export function parseContractUrl(text: string): { hub: string; id: string } {
  const trimmed = text.replace(/\/+$/, "");
  const at = trimmed.lastIndexOf("/");
  const id = trimmed.slice(at + 1);
  let hub = trimmed.slice(0, at);
  if (hub.endsWith("/contracts")) hub = hub.slice(0, -"/contracts".length);
  if (at < 0 || !isContractId(id) || !/^https?:\/\/[^/]/.test(hub)) {
    throw new UsageError(`expected <hub-url>/<contract_id>, got ${JSON.stringify(text)}`);
  }
  return { hub: checkUrl(hub), id };
}

/**
 * `contract-hub clone <hub-url>/<contract_id> [DIR]`: pulls the whole log, replays it locally
 * without trusting the hub (every hash, parent link, signature, transition and rule), and only
 * then writes DIR (default: the contract id).
 */
export function cloneCommand(
  target: string,
  dir: string | undefined,
  opts: HubFlags & WitnessPinFlags,
  io: Io,
): Promise<number> {
  return runCommand(io, opts, "clone", async (cli: Cli) => {
    const { hub, id } = parseContractUrl(target);
    const root = resolve(cli.cwd, dir ?? id);
    WorkingCopy.refuseExisting(root);
    const key = readingKey(cli, opts.key, null);
    const client = clientFor(cli, hub, key);
    const pinned = await fetchLogKey(client, opts);
    await checkWitnessesFirst(client, pinned);
    const { commits } = await pullAll(client, id);
    const { log, state } = await acceptPulled(id, [], commits);
    const wc = WorkingCopy.create(root, { hub, contract_id: id, ...(key ? { key: key.name } : {}) }, log);
    await checkWorkingCopyLog(wc, client, pinned);
    const view = stateView(state);
    report(cli, { contract_id: id, hub, dir: root, commits: log.length, head: state.head, state: view }, () => [
      `Cloned ${id} from ${hub} into ${root}: ${count(log.length, "commit")} verified`,
      stateLine(view),
    ]);
    return undefined;
  });
}
