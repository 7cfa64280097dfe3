import { pushInBatches } from "../client/sync.js";
import { stateView } from "../contract/engine.js";
import { toWireCommit } from "../contract/StoredCommit.js";
import { type Cli, progressBar, report, runCommand } from "./cliContext.js";
import { count } from "./count.js";
import { shortHash } from "./hashPrefix.js";
import type { Io } from "./Io.js";
import { clientFor, type HubFlags, hubUrl, writingKey } from "./workingCopy/hubAccess.js";
import { checkWorkingCopyLog } from "./workingCopy/hubLog.js";
import { stateOf } from "./workingCopy/localLog.js";
import { positiveInteger } from "./workingCopy/numbers.js";
import { explainPushFailure } from "./workingCopy/pushFailure.js";
import { fastForward, fetchRemote } from "./workingCopy/sync.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

/** Progress is drawn only for pushes of at least this many commits. */
const LONG_PUSH = 200;

/**
 * `contract-hub push [--batch-size N]`: sends the local commits the hub does not have, in
 * atomic requests of N (default 1000), then takes the hub's receipt times back (a pull).
 * When a request is refused, what the hub stored before it is recorded all the same, and the
 * refusal names the commit and the way on (workingCopy/pushFailure.ts).
 */
export function pushCommand(opts: HubFlags & { batchSize?: string }, io: Io): Promise<number> {
  return runCommand(io, opts, "push", async (cli: Cli) => {
    const wc = WorkingCopy.find(cli.cwd);
    await wc.lock(cli);
    const key = writingKey(cli, opts.key, wc);
    const client = clientFor(cli, hubUrl(cli, opts.hub, wc), key);
    const batchSize = opts.batchSize === undefined ? 1000 : positiveInteger(opts.batchSize, "--batch-size");
    const id = wc.config.contract_id;
    const origin = wc.origin();
    const log = wc.readCommits();
    const unpushed = log.slice(origin.length);
    // Nothing is pushed to a hub that rolled back or forked its log.
    const verified = await checkWorkingCopyLog(wc, client);
    if (unpushed.length === 0) {
      // The same document as after a push, so a script can read `state` whatever there was to send.
      const state = stateView(await stateOf(id, log));
      const doc = { contract_id: id, pushed: 0, head: origin.head, ahead: 0, state, log_size: verified.size };
      report(cli, doc, () => "Everything up to date");
      return undefined;
    }
    const bar = progressBar(cli, unpushed.length, "commits", unpushed.length >= LONG_PUSH);
    let result: { pushed: number; head: string };
    try {
      result = await pushInBatches(client, id, unpushed.map(toWireCommit), {
        batchSize,
        onProgress: (p) => bar.update(p.done),
      });
    } catch (err) {
      bar.finish();
      throw await explainPushFailure(err, wc, client, unpushed, batchSize, key.publicKey);
    }
    bar.finish();
    // The hub stamped the commits with its receipt time: take its copies (and anything pushed after ours).
    const outcome = await fastForward(wc, (await fetchRemote(client, wc)).commits);
    const checkpoint = await checkWorkingCopyLog(wc, client);
    const doc = {
      contract_id: id,
      pushed: result.pushed,
      head: outcome.head,
      ahead: outcome.ahead,
      state: stateView(outcome.state),
      log_size: checkpoint.size,
    };
    report(
      cli,
      doc,
      () => `Pushed ${count(result.pushed, "commit")} to ${client.url}; head ${shortHash(outcome.head)}`,
    );
    return undefined;
  });
}
