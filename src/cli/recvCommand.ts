import { isContractError } from "../contract/ContractError.js";
import type { StoredCommit } from "../contract/StoredCommit.js";
import { type Cli, runCommand } from "./cliContext.js";
import { hashRef, uniqueByPrefix } from "./hashPrefix.js";
import type { Io } from "./Io.js";
import { allIncoming, sendText, unpushedReceipts, unpushedSendsTo } from "./incomingCommand.js";
import { askHubWithin } from "./workingCopy/askHubWithin.js";
import { alreadyReceived, checkRecvLocally } from "./workingCopy/checkRecvLocally.js";
import { type CommitFlags, commitLocally } from "./workingCopy/commitLocally.js";
import { clientFor, hubUrl, readingKey } from "./workingCopy/hubAccess.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

/**
 * `contract-hub recv --send HASH`: a RECV commit of a SEND made to this contract. HASH is the
 * full hash, or a unique prefix (7+ characters) of a SEND to this contract still waiting to be
 * received, as `incoming` prints it. Either way the RECV is refused before it is written when
 * the working copy's log shows it cannot be accepted (received already, or a SEND to another
 * contract), and, for a full hash, when the hub (asked for 2 s at most) has recorded the SEND
 * as received; the hub checks the rest at push.
 */
export function recvCommand(opts: CommitFlags & { send?: string; hub?: string }, io: Io): Promise<number> {
  return runCommand(io, opts, "recv", async (cli: Cli) => {
    const ref = hashRef(opts.send, "--send");
    const wc = WorkingCopy.find(cli.cwd);
    const log = wc.readCommits();
    const pushed = wc.origin().length;
    const hash = ref.length === 64 ? ref : await resolveSend(cli, opts, wc, log, pushed, ref);
    checkRecvLocally(wc.config.contract_id, log, pushed, hash);
    if (ref.length === 64) await checkRecvOnHub(cli, opts, wc, hash);
    await commitLocally(cli, opts, [{ method: "recv", value: { send_commit_id: hash } }]);
    return undefined;
  });
}

/** How long a full-hash `recv` waits for the hub's word before leaving the check to the push. */
const HUB_WAIT_MS = 2000;

/**
 * Refuses a RECV of `send` that the hub has recorded as received already (by any commit of
 * this contract: the hub lists the SENDs addressed to it). A hub that does not answer in time
 * proves nothing; the push will ask it again.
 */
async function checkRecvOnHub(cli: Cli, opts: CommitFlags & { hub?: string }, wc: WorkingCopy, send: string) {
  const id = wc.config.contract_id;
  let sends: Awaited<ReturnType<typeof allIncoming>>;
  try {
    const hub = hubUrl(cli, opts.hub, wc);
    const reader = readingKey(cli, opts.key, wc);
    sends = await askHubWithin(HUB_WAIT_MS, (signal) => allIncoming(clientFor(cli, hub, reader, signal), id, false));
  } catch {
    return;
  }
  const known = sends.find((s) => s.send_commit_id === send);
  if (known?.recv_commit_id != null) throw alreadyReceived(send, known.recv_commit_id, "the hub");
}

/**
 * The SEND a prefix names among those this contract may still receive: the hub's pending
 * SENDs to it and the working copy's unpushed SENDs to itself, less those an unpushed RECV
 * already takes. A prefix of a SEND received already is answered as such, not as unknown.
 */
async function resolveSend(
  cli: Cli,
  opts: CommitFlags & { hub?: string },
  wc: WorkingCopy,
  log: readonly StoredCommit[],
  pushed: number,
  ref: string,
): Promise<string> {
  const id = wc.config.contract_id;
  const unpushed = log.slice(pushed);
  const taken = unpushedReceipts(unpushed);
  const client = clientFor(cli, hubUrl(cli, opts.hub, wc), readingKey(cli, opts.key, wc));
  const candidates = [
    ...(await allIncoming(client, id, true)).map((s) => ({ hash: s.send_commit_id, text: sendText(s) })),
    ...unpushedSendsTo(id, unpushed).map((s) => ({
      hash: s.hash,
      text: `${s.value.amount} ${s.value.asset_id} from this contract (not pushed)`,
    })),
  ].filter((c) => !taken.has(c.hash));
  try {
    return uniqueByPrefix(ref, candidates, {
      hashOf: (c) => c.hash,
      what: `SENDs to ${id} waiting to be received`,
      notFoundReason: "send_not_found",
      hint: "`contract-hub incoming` lists them (--all: received ones too).",
      describe: (c) => c.text,
    }).hash;
  } catch (err) {
    if (!isContractError(err, "NOT_FOUND")) throw err;
    const local = [...taken].find(([send]) => send.startsWith(ref));
    if (local !== undefined) checkRecvLocally(id, log, pushed, local[0]);
    const received = (await allIncoming(client, id, false)).filter((s) => s.send_commit_id.startsWith(ref));
    if (received.length === 1 && received[0]!.recv_commit_id !== null)
      throw alreadyReceived(received[0]!.send_commit_id, received[0]!.recv_commit_id, "the hub");
    throw err;
  }
}
