import { ContractError, isContractError } from "../contract/ContractError.js";
import { type Cli, runCommand } from "./cliContext.js";
import { hashRef, shortHash, uniqueByPrefix } from "./hashPrefix.js";
import type { Io } from "./Io.js";
import { allIncoming, sendText, unpushedReceipts, unpushedSendsTo } from "./incomingCommand.js";
import { type CommitFlags, commitLocally } from "./workingCopy/commitLocally.js";
import { clientFor, hubUrl, readingKey } from "./workingCopy/hubAccess.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

/**
 * `contract-hub recv --send HASH`: a RECV commit of a SEND made to this contract (the hub checks
 * the SEND at push). HASH is the full hash, or a unique prefix (7+ characters) of a SEND to this
 * contract still waiting to be received, as `incoming` prints it; a full hash needs no hub.
 */
export function recvCommand(opts: CommitFlags & { send?: string; hub?: string }, io: Io): Promise<number> {
  return runCommand(io, opts, "recv", async (cli: Cli) => {
    const ref = hashRef(opts.send, "--send");
    const hash = ref.length === 64 ? ref : await resolveSend(cli, opts, ref);
    await commitLocally(cli, opts, [{ method: "recv", value: { send_commit_id: hash } }]);
    return undefined;
  });
}

/**
 * The SEND a prefix names among those this contract may still receive: the hub's pending
 * SENDs to it and the working copy's unpushed SENDs to itself, less those an unpushed RECV
 * already takes. A prefix of a SEND received already is answered as such, not as unknown.
 */
async function resolveSend(cli: Cli, opts: CommitFlags & { hub?: string }, ref: string): Promise<string> {
  const wc = WorkingCopy.find(cli.cwd);
  const id = wc.config.contract_id;
  const unpushed = wc.readCommits().slice(wc.origin().length);
  const taken = unpushedReceipts(unpushed);
  const client = clientFor(hubUrl(cli, opts.hub, wc), readingKey(cli, opts.key, wc));
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
    if (local !== undefined) throw alreadyReceived(local[0], local[1], "an unpushed commit of this working copy");
    const received = (await allIncoming(client, id, false)).filter((s) => s.send_commit_id.startsWith(ref));
    if (received.length === 1 && received[0]!.recv_commit_id !== null)
      throw alreadyReceived(received[0]!.send_commit_id, received[0]!.recv_commit_id, "the hub");
    throw err;
  }
}

/** The refusal of a RECV of a SEND that was received already (the code the hub gives it). */
function alreadyReceived(send: string, by: string, where: string): ContractError {
  return new ContractError(
    "VALIDATION_FAILED",
    `RECV rejected: SEND ${shortHash(send)} was already received by ${shortHash(by)} (${where})`,
    { reason: "already_received", rpc_code: -32032, send_commit_id: send, received_by: by },
  );
}
