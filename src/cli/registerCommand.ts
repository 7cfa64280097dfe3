import { type Cli, report, runCommand } from "./cliContext.js";
import type { Io } from "./Io.js";
import { clientFor, type HubFlags, hubUrl, writingKey } from "./workingCopy/hubAccess.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

/**
 * `contract-hub register [--hub URL] [--key NAME] [--json]`: registers the key with the hub
 * as an identity and as its own access key (docs/api.md: both signatures by the same key),
 * so the key both signs requests and is the identity stored at a party's `.id` path.
 */
export function registerCommand(opts: HubFlags, io: Io): Promise<number> {
  return runCommand(io, opts, "register", async (cli: Cli) => {
    const wc = WorkingCopy.tryFind(cli.cwd);
    const url = hubUrl(cli, opts.hub, wc);
    const key = writingKey(cli, opts.key, wc);
    const result = await clientFor(cli, url, null).register(key.seed, key.seed);
    report(cli, { ...result, key: key.name, hub: url }, () => `Registered ${key.name} (${result.identity}) at ${url}`);
    return undefined;
  });
}
