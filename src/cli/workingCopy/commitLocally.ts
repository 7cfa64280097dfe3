/**
 * The one path by which a working copy gains a commit: build it on the local head, sign it,
 * run the engine exactly as the hub would (acceptCommit with the local log as readLog), and
 * write it only if accepted. Used by commit, send, recv and create.
 */
import { buildWireCommit } from "../../contract/buildWireCommit.js";
import type { Operation } from "../../contract/Commit.js";
import { isContractError } from "../../contract/ContractError.js";
import { type StateView, stateView } from "../../contract/engine.js";
import { actionLabelsOf, type StoredCommit } from "../../contract/StoredCommit.js";
import { type Cli, report, UsageError } from "../cliContext.js";
import { diagnose, withDiagnosis } from "../explainRefusal.js";
import { shortHash } from "../hashPrefix.js";
import { KeyStore } from "../KeyStore.js";
import { stateLine } from "../nextActions.js";
import { askHubWithin } from "./askHubWithin.js";
import { clientFor, readingKey, writingKey } from "./hubAccess.js";
import { acceptNext, localStamp, stateOf } from "./localLog.js";
import { withProposeHint } from "./proposeHint.js";
import { WorkingCopy } from "./WorkingCopy.js";

/** Flags shared by the committing commands. */
export interface CommitFlags {
  key?: string;
  /** Key names that sign the commit (default: the --key key). */
  sign?: string[];
  /** Action labels added after the operation. */
  action?: string[];
  json?: boolean;
}

/** What a committing command prints with --json. */
export interface CommitResult {
  contract_id: string;
  hash: string;
  index: number;
  parent: string;
  signers: string[];
  action_labels: string[];
  pushed: false;
  state: StateView;
}

/**
 * A check the command could not make before writing: `code` is stable for scripts (docs/cli.md),
 * `message` is for people.
 */
export interface CommitWarning {
  code: string;
  message: string;
}

/**
 * Validates and stores `ops` (then one action operation per --action) as the next local commit.
 * `warnings` are reported as init reports its own: `warnings` (the messages) in the --json
 * document, with `warning_codes` in the same order, else `warning:` lines on stderr.
 */
export async function commitLocally(
  cli: Cli,
  opts: CommitFlags,
  ops: Operation[],
  warnings: readonly CommitWarning[] = [],
): Promise<CommitResult> {
  const wc = WorkingCopy.find(cli.cwd);
  await wc.lock(cli);
  const keys = KeyStore.of(cli.env);
  const data = [...ops, ...(opts.action ?? []).map((label): Operation => ({ method: "action", value: label }))];
  if (data.length === 0)
    throw new UsageError("nothing to commit: pass an operation (--post, --model, --rule) or --action");
  const signers = (opts.sign ?? []).length > 0 ? opts.sign!.map((n) => keys.get(n)) : [writingKey(cli, opts.key, wc)];
  const id = wc.config.contract_id;
  const log = wc.readCommits();
  const state = await stateOf(id, log);
  const parent = state.head;
  const commit = buildWireCommit(
    id,
    parent,
    data,
    signers.map((k) => ({ key: k.seed })),
  );
  let stored: StoredCommit;
  try {
    stored = await acceptNext(state, log, commit, localStamp(state));
  } catch (err) {
    const hinted = await withProposeHint(err, state, log, commit);
    if (!isContractError(hinted, "VALIDATION_FAILED")) throw hinted;
    const labels = data.flatMap((op) => (op.method === "action" ? [String(op.value)] : []));
    const found = diagnose(state, hinted, labels, signers);
    const behind = await commitsBehind(cli, opts.key, wc, log);
    if (behind > 0) found.unshift({ kind: "behind_hub", behind });
    throw withDiagnosis(hinted, found);
  }
  wc.writeCommits(stored.index, [stored]);
  const result: CommitResult = {
    contract_id: id,
    hash: stored.hash,
    index: stored.index,
    parent,
    signers: stored.signers.map((s) => `ed25519:${s}`),
    action_labels: actionLabelsOf(stored.data),
    pushed: false,
    state: stateView(state),
  };
  const warned =
    warnings.length === 0
      ? result
      : { ...result, warnings: warnings.map((w) => w.message), warning_codes: warnings.map((w) => w.code) };
  report(cli, warned, () => [
    `Committed ${shortHash(stored.hash)} (index ${stored.index}, signed by ${signers.map((k) => k.name).join(", ")})`,
    stateLine(result.state),
    "Not pushed yet: contract-hub push",
  ]);
  if (!cli.json) for (const w of warnings) cli.io.err(`warning: ${w.message}`);
  return result;
}

/**
 * How many commits the hub holds past the working copy's log, asked only after a refusal (a
 * commit refused on a stale head is the commonest mistake). 0 when the hub is not reachable
 * within a second or the hub's head is local: the refusal then stands on its own.
 */
async function commitsBehind(
  cli: Cli,
  key: string | undefined,
  wc: WorkingCopy,
  log: readonly StoredCommit[],
): Promise<number> {
  if (wc.config.hub === undefined) return 0;
  try {
    const reader = readingKey(cli, key, wc);
    // Cancelled after a second, not left behind: a request still waiting would keep the
    // process alive after its answer was printed, for as long as the hub held it.
    const hub = await askHubWithin(1000, (signal) =>
      clientFor(cli, wc.config.hub!, reader, signal).getState(wc.config.contract_id),
    );
    if (log.some((c) => c.hash === hub.head)) return 0;
    return Math.max(0, hub.commit_count - wc.origin().length);
  } catch {
    return 0;
  }
}
