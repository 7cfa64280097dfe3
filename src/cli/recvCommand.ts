import { type Cli, runCommand } from "./cliContext.js";
import type { Io } from "./Io.js";
import { type CommitFlags, commitLocally } from "./workingCopy/commitLocally.js";
import { required } from "./workingCopy/numbers.js";

/** `contract-hub recv --send HASH`: a RECV commit of a SEND made to this contract (the hub checks the SEND at push). */
export function recvCommand(opts: CommitFlags & { send?: string }, io: Io): Promise<number> {
  return runCommand(io, opts, "recv", async (cli: Cli) => {
    await commitLocally(cli, opts, [{ method: "recv", value: { send_commit_id: required(opts.send, "--send") } }]);
    return undefined;
  });
}
