import type { HubClient } from "../client/HubClient.js";
import type { LogEntry } from "../contract/Commit.js";
import { toLogEntry } from "../contract/StoredCommit.js";
import { type Cli, report, runCommand } from "./cliContext.js";
import { shortHash } from "./hashPrefix.js";
import type { Io } from "./Io.js";
import { KeyStore } from "./KeyStore.js";
import { logLine } from "./logCommand.js";
import { clientFor, type HubFlags, hubUrl, readingKey } from "./workingCopy/hubAccess.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

/** The hub's log entries from index `from` on, page by page. */
async function hubLogFrom(client: HubClient, id: string, from: number): Promise<LogEntry[]> {
  const entries: LogEntry[] = [];
  for (;;) {
    const page = await client.getLog(id, { offset: from + entries.length, limit: 1000 });
    entries.push(...page.commits);
    if (page.commits.length === 0 || from + entries.length >= page.total) return entries;
  }
}

/** `contract-hub diff`: commits only in the working copy (unpushed) and only on the hub (not pulled). */
export function diffCommand(opts: HubFlags, io: Io): Promise<number> {
  return runCommand(io, opts, "diff", async (cli: Cli) => {
    const wc = WorkingCopy.find(cli.cwd);
    const id = wc.config.contract_id;
    const origin = wc.origin();
    const local = wc.readCommits();
    const client = clientFor(cli, hubUrl(cli, opts.hub, wc), readingKey(cli, opts.key, wc));
    const remote = await hubLogFrom(client, id, origin.length);
    const remoteHashes = new Set(remote.map((e) => e.hash));
    const localHashes = new Set(local.map((c) => c.hash));
    const doc = {
      contract_id: id,
      base: origin.head,
      local_only: local
        .slice(origin.length)
        .filter((c) => !remoteHashes.has(c.hash))
        .map(toLogEntry),
      remote_only: remote.filter((e) => !localHashes.has(e.hash)),
    };
    report(cli, doc, () => {
      const nameOf = KeyStore.of(cli.env).namer();
      return [
        `Common base ${shortHash(origin.head)} (index ${origin.length - 1})`,
        `Only here (${doc.local_only.length}):`,
        ...doc.local_only.map((e) => `  ${logLine(e, "", nameOf)}`),
        `Only on the hub (${doc.remote_only.length}):`,
        ...doc.remote_only.map((e) => `  ${logLine(e, "", nameOf)}`),
      ];
    });
    return undefined;
  });
}
