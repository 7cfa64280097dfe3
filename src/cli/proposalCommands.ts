/**
 * `propose`, `proposals`, `sign` and `withdraw`: co-signing a commit across machines. One
 * party proposes it (signed with their key), the others fetch it, check it, sign it on their
 * own machines; the hub appends it once it validates, and the working copies pull it.
 */
import type { ProposalView } from "../api/responses.js";
import type { HubClient } from "../client/HubClient.js";
import { proposalSignatures, verifiedProposalHash } from "../client/proposalSignatures.js";
import type { Operation } from "../contract/Commit.js";
import { ContractError } from "../contract/ContractError.js";
import { signCommit } from "../contract/commitHash.js";
import { buildCommit, stateView } from "../contract/engine.js";
import { PROPOSAL_STATUSES, type ProposalStatus } from "../store/ProposalRecord.js";
import { type Cli, report, runCommand, UsageError } from "./cliContext.js";
import { type CommitCommandFlags, operationsOf } from "./commitCommand.js";
import { hashRef, shortHash, uniqueByPrefix } from "./hashPrefix.js";
import type { Io } from "./Io.js";
import { KeyStore, type StoredKey } from "./KeyStore.js";
import { proposalLines } from "./proposalText.js";
import { clientFor, type HubFlags, hubUrl, readingKey, writingKey } from "./workingCopy/hubAccess.js";
import { fastForward, fetchRemote, type PullOutcome } from "./workingCopy/sync.js";
import { WorkingCopy } from "./workingCopy/WorkingCopy.js";

/**
 * The working copy at the hub's head (pulled first); refuses when it holds unpushed commits.
 * `command` (propose or sign) is the one the hint tells the user to run again.
 */
async function upToDate(client: HubClient, wc: WorkingCopy, command: "propose" | "sign"): Promise<PullOutcome> {
  const outcome = await fastForward(wc, (await fetchRemote(client, wc)).commits);
  if (outcome.ahead > 0)
    throw new ContractError("CONFLICT", `This working copy has ${outcome.ahead} unpushed commit(s): push them first`, {
      reason: "unpushed_commits",
      hint: `A proposal extends the hub's head: \`contract-hub push\` (or \`reset --hard origin\`), then ${command} again.`,
    });
  return outcome;
}

/** After a proposal was committed on the hub: the working copy pulls it (validated like any pull). */
async function pullCommitted(client: HubClient, wc: WorkingCopy, p: ProposalView): Promise<void> {
  if (p.status === "committed") await fastForward(wc, (await fetchRemote(client, wc)).commits);
}

/** `propose`: the flags of `commit`; the commit is built on the hub's head, signed by --sign keys (or --key), uploaded. */
export function proposeCommand(
  value: string | undefined,
  opts: CommitCommandFlags & { hub?: string },
  io: Io,
): Promise<number> {
  return runCommand(io, opts, "propose", async (cli: Cli) => {
    const wc = WorkingCopy.find(cli.cwd);
    await wc.lock(cli);
    const keys = KeyStore.of(cli.env);
    const ops: Operation[] = [
      ...operationsOf(cli, value, opts),
      ...(opts.action ?? []).map((label): Operation => ({ method: "action", value: label })),
    ];
    if (ops.length === 0)
      throw new UsageError("nothing to propose: pass an operation (--post, --model, --rule) or --action");
    const key = writingKey(cli, opts.key, wc);
    const signers = (opts.sign ?? []).length > 0 ? opts.sign!.map((n) => keys.get(n)) : [key];
    const client = clientFor(cli, hubUrl(cli, opts.hub, wc), key);
    const { state } = await upToDate(client, wc, "propose");
    const commit = buildCommit(wc.config.contract_id, state.head, ops);
    for (const s of signers) commit.head.signatures[signerName(state.data, s, [])] = signCommit(commit.hash, s.seed);
    const answer = await client.propose(wc.config.contract_id, commit);
    await pullCommitted(client, wc, answer.proposal);
    report(cli, answer, () => [
      ...proposalLines(answer.proposal, stateView(state)),
      answer.proposal.status === "committed"
        ? `Complete already: appended at index ${answer.commit?.index ?? answer.proposal.commit_index}, and pulled`
        : `The others sign it with: contract-hub sign ${shortHash(answer.proposal.hash)}`,
    ]);
    return undefined;
  });
}

/** `proposals`: the contract's proposals (open unless --status), with who has signed and who must. */
export function proposalsCommand(opts: HubFlags & { status?: string }, io: Io): Promise<number> {
  return runCommand(io, opts, "proposals", async (cli: Cli) => {
    const wc = WorkingCopy.find(cli.cwd);
    const client = clientFor(cli, hubUrl(cli, opts.hub, wc), readingKey(cli, opts.key, wc));
    const status = opts.status ?? "open";
    if (!isProposalStatus(status))
      throw new UsageError(`--status must be one of ${PROPOSAL_STATUSES.join(", ")}, got ${JSON.stringify(status)}`);
    const [{ proposals }, view] = await Promise.all([
      client.listProposals(wc.config.contract_id, { status, limit: 1000 }),
      client.getState(wc.config.contract_id),
    ]);
    report(cli, { contract_id: wc.config.contract_id, proposals }, () =>
      proposals.length === 0 ? `No ${status} proposals` : proposals.flatMap((p) => proposalLines(p, view)),
    );
    return undefined;
  });
}

/**
 * `sign <hash or unique prefix>`: fetches the proposal, recomputes its hash from its content
 * (the hub's word is never taken for it), shows what it does, signs with --sign keys (or
 * --key) under the state paths that hold them, and uploads the signatures.
 */
export function signCommand(ref: string, opts: HubFlags & { sign?: string[] }, io: Io): Promise<number> {
  return runCommand(io, opts, "sign", async (cli: Cli) => {
    const wc = WorkingCopy.find(cli.cwd);
    await wc.lock(cli);
    const keys = KeyStore.of(cli.env);
    const key = writingKey(cli, opts.key, wc);
    const signers = (opts.sign ?? []).length > 0 ? opts.sign!.map((n) => keys.get(n)) : [key];
    const client = clientFor(cli, hubUrl(cli, opts.hub, wc), key);
    const { state } = await upToDate(client, wc, "sign");
    const proposal = await findProposal(client, wc.config.contract_id, ref);
    if (proposal.contract_id !== wc.config.contract_id)
      throw new ContractError(
        "CONFLICT",
        `The hub answered proposal ${proposal.hash} of contract ${proposal.contract_id}, not of ${wc.config.contract_id}`,
        { reason: "proposal_not_on_head", status: proposal.status },
      );
    verifiedProposalHash(proposal);
    // Signing what is appended already is a retry, as the hub answers it: the working copy has
    // just pulled it (upToDate), so there is nothing left to do.
    if (proposal.status === "committed") {
      report(cli, { proposal }, () => [
        `Proposal ${proposal.hash} is committed already, at index ${proposal.commit_index}; pulled`,
      ]);
      return undefined;
    }
    if (proposal.status !== "open")
      throw new ContractError(
        "CONFLICT",
        `Proposal ${proposal.hash} is ${proposal.status}: it can no longer be signed`,
        {
          reason: `proposal_${proposal.status}`,
          status: proposal.status,
        },
      );
    if (proposal.parent !== state.head)
      throw new ContractError(
        "CONFLICT",
        `Proposal ${proposal.hash} extends ${proposal.parent}, not this contract's head ${state.head}`,
        { reason: "proposal_not_on_head", status: proposal.status },
      );
    const wanted = proposal.missing.flatMap((m) => m.signers);
    const signatures = proposalSignatures(
      proposal,
      signers.map((s) => ({ key: s.seed, as: signerName(state.data, s, wanted) })),
    );
    if (!cli.json) cli.io.out(`${proposalLines(proposal, stateView(state)).join("\n")}\n`);
    const answer = await client.signProposal(wc.config.contract_id, proposal.hash, signatures);
    await pullCommitted(client, wc, answer.proposal);
    report(cli, answer, () => [
      `Signed as ${Object.keys(signatures).join(", ")}`,
      answer.proposal.status === "committed"
        ? `Complete: appended at index ${answer.proposal.commit_index}, and pulled`
        : `Still open: ${answer.proposal.missing.map((m) => `${m.needed} more for ${m.predicate} from ${m.signers.join(", ")}`).join("; ")}`,
    ]);
    return undefined;
  });
}

/** `withdraw <hash or unique prefix>`: the proposer or the owner withdraws an open proposal. */
export function withdrawCommand(ref: string, opts: HubFlags, io: Io): Promise<number> {
  return runCommand(io, opts, "withdraw", async (cli: Cli) => {
    const wc = WorkingCopy.find(cli.cwd);
    const client = clientFor(cli, hubUrl(cli, opts.hub, wc), writingKey(cli, opts.key, wc));
    const proposal = await findProposal(client, wc.config.contract_id, ref);
    const answer = await client.withdrawProposal(wc.config.contract_id, proposal.hash);
    report(cli, answer, () => `Withdrew proposal ${answer.proposal.hash}`);
    return undefined;
  });
}

/**
 * The proposal a full hash, or a unique prefix of a proposal's hash, names (the shared rule of
 * hashPrefix.ts). Prefixes are resolved among proposals of every status, so a stale, withdrawn
 * or committed one is found and the command reports its real status, not "no such proposal".
 */
async function findProposal(client: HubClient, id: string, ref: string): Promise<ProposalView> {
  const hash = hashRef(ref, "hash");
  if (hash.length === 64) return (await client.getProposal(id, hash)).proposal;
  const lists = await Promise.all(PROPOSAL_STATUSES.map((status) => everyProposal(client, id, status)));
  return uniqueByPrefix(hash, lists.flat(), {
    hashOf: (p) => p.hash,
    what: `proposals of ${id}`,
    notFoundReason: "proposal_not_found",
    describe: (p) => `${p.status}, proposed by ${p.proposer.slice(0, 20)}…`,
  });
}

/** Every proposal of one status, page by page (committed and withdrawn ones accumulate past a page). */
async function everyProposal(client: HubClient, id: string, status: ProposalStatus): Promise<ProposalView[]> {
  const all: ProposalView[] = [];
  for (;;) {
    const { proposals } = await client.listProposals(id, { status, limit: PAGE, offset: all.length });
    all.push(...proposals);
    if (proposals.length < PAGE) return all;
  }
}

/** The hub's largest page of a list. */
const PAGE = 1000;

const isProposalStatus = (s: string): s is ProposalStatus => (PROPOSAL_STATUSES as readonly string[]).includes(s);

/** The `head.signatures` key for `key`: a wanted state path holding it, else any `.id` path holding it, else its identity. */
function signerName(data: ReadonlyMap<string, unknown>, key: StoredKey, wanted: readonly string[]): string {
  const identity = `ed25519:${key.publicKey}`;
  const paths = [...data].filter(([p, v]) => p.endsWith(".id") && v === key.publicKey).map(([p]) => p);
  return paths.find((p) => wanted.includes(p)) ?? (wanted.includes(identity) ? identity : (paths[0] ?? identity));
}
