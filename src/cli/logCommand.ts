import type { LogEntry } from "../contract/Commit.js";
import { toLogEntry } from "../contract/StoredCommit.js";
import { type Cli, report, runCommand } from "./cliContext.js";
import { shortHash } from "./hashPrefix.js";
import type { Io } from "./Io.js";
import { KeyStore } from "./KeyStore.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

/** One line of a log entry for people; `nameOf` turns a signer's key into the name of a local key. */
export function logLine(e: LogEntry, note = "", nameOf: (signer: string) => string | null = () => null): string {
  const what = [
    e.method,
    e.path,
    e.value !== undefined && e.method !== "genesis" && e.method !== "action" ? short(e.value) : undefined,
  ]
    .filter((x) => x !== undefined)
    .join(" ");
  const labels = e.action_labels?.length ? ` [${e.action_labels.join(" ")}]` : "";
  const signers = e.signers.length > 0 ? e.signers : e.signer ? [e.signer] : [];
  const by = signers.length > 0 ? ` by ${signers.map((s) => nameOf(s) ?? `${s.slice(0, 20)}…`).join(", ")}` : "";
  return `${String(e.index).padStart(4)} ${shortHash(e.hash)} ${what}${labels}${by}${note}`;
}

function short(v: unknown): string {
  const s = JSON.stringify(v);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

/** `contract-hub log [--json]`: the local log, oldest first (log entries); unpushed commits are marked for people. */
export function logCommand(opts: { json?: boolean }, io: Io): Promise<number> {
  return runCommand(io, opts, "log", async (cli: Cli) => {
    const wc = WorkingCopy.find(cli.cwd);
    const origin = wc.origin();
    const entries = wc.readCommits().map(toLogEntry);
    report(cli, entries, () => {
      const nameOf = KeyStore.of(cli.env).namer();
      return entries.map((e) => logLine(e, e.index >= origin.length ? "  (not pushed)" : "", nameOf));
    });
    return undefined;
  });
}
