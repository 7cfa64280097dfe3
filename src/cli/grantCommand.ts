import { type Cli, report, runCommand, UsageError } from "./cliContext.js";
import type { Io } from "./Io.js";
import { KeyStore } from "./KeyStore.js";
import { clientFor, type HubFlags, hubUrl, writingKey } from "./workingCopy/hubAccess.js";
import { resolveIdentity } from "./workingCopy/identities.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

const ROLES = new Set(["reader", "writer", "none"]);

/** `contract-hub grant <identity|key name> --role reader|writer|none`: the owner's REST grant on this contract. */
export function grantCommand(
  who: string,
  opts: HubFlags & { role?: string; contract?: string },
  io: Io,
): Promise<number> {
  return runCommand(io, opts, "grant", async (cli: Cli) => {
    if (opts.role === undefined || !ROLES.has(opts.role)) throw new UsageError("--role must be reader, writer or none");
    const wc = opts.contract === undefined ? WorkingCopy.find(cli.cwd) : WorkingCopy.tryFind(cli.cwd);
    const id = opts.contract ?? wc!.config.contract_id;
    const identity = `ed25519:${resolveIdentity(KeyStore.of(cli.env), who, "identity")}`;
    const client = clientFor(cli, hubUrl(cli, opts.hub, wc), writingKey(cli, opts.key, wc));
    const result = await client.grant(id, identity, opts.role as "reader" | "writer" | "none");
    report(cli, result, () => `Granted ${result.role} on ${id} to ${result.identity}`);
    return undefined;
  });
}
