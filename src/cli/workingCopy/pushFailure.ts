/**
 * What a failed push leaves behind, and what to do next. A push goes out in atomic requests:
 * those before the refused one stay stored on the hub, so the working copy takes the hub's
 * copies of them (as a successful push does) before the refusal is reported; the refusal
 * then says how many commits the hub stored, which commit it refused (as the hub names it, or
 * guessed for an older hub), and the way on that works from here (pull, reset, or asking the
 * owner for access).
 */
import type { HubClient } from "../../client/HubClient.js";
import type { RecvValue } from "../../contract/Commit.js";
import { ContractError, isContractError } from "../../contract/ContractError.js";
import { NOT_ABOUT_A_COMMIT } from "../../contract/errorCodes.js";
import type { StoredCommit } from "../../contract/StoredCommit.js";
import { count } from "../count.js";
import { shortHash } from "../hashPrefix.js";
import { fastForward, fetchRemote } from "./sync.js";
import type { WorkingCopy } from "./WorkingCopy.js";
import { REPAIR_COMMAND } from "./WorkingCopy.js";

/** What the hub turned out to hold after a failed push. */
type Settled =
  /** The hub's commits were taken: `stored` of the pushed ones are on the hub now. */
  | { kind: "recorded"; stored: number; head: string }
  /** The hub holds commits the working copy lacks, and the other way round. */
  | { kind: "diverged" }
  /** The hub could not be asked: nothing was recorded. */
  | { kind: "unknown" };

/**
 * The error to report for a push of `unpushed` (in requests of `batchSize`) that failed with
 * `err`, after recording in `wc` what the hub accepted.
 */
export async function explainPushFailure(
  err: unknown,
  wc: WorkingCopy,
  client: HubClient,
  unpushed: readonly StoredCommit[],
  batchSize: number,
  identity: string,
): Promise<unknown> {
  if (!isContractError(err)) return err;
  const settled = await settle(wc, client);
  const stored = settled.kind === "recorded" ? settled.stored : 0;
  const details: Record<string, unknown> = { ...(err.details ?? {}) };
  if (settled.kind === "recorded") details.pushed = stored;
  const storedText =
    settled.kind === "recorded" && stored > 0
      ? ` ${count(stored, "commit")} before it ${stored === 1 ? "was" : "were"} stored on the hub (head ${shortHash(settled.head)}) and ${stored === 1 ? "is" : "are"} recorded as pushed.`
      : "";

  if (err.code === "CONFLICT") {
    const diverged = settled.kind === "diverged";
    details.diverged = diverged;
    details.hint = diverged
      ? `\`contract-hub diff\` shows both sides. To take the hub's commits, drop the local ones with \`${REPAIR_COMMAND}\` (it pulls), then commit again on the new head. Hub said: ${err.message}`
      : `Hub said: ${err.message}`;
    const message = diverged
      ? "The hub has commits this working copy does not have, and this working copy has commits the hub does not have: they have diverged, so pull cannot fast-forward"
      : settled.kind === "recorded"
        ? "The hub had commits this working copy did not have: they are pulled now; check them, then push again"
        : `The hub has commits this working copy does not have: pull first (contract-hub pull); if pull refuses as diverged, ${REPAIR_COMMAND} and commit again`;
    return new ContractError("CONFLICT", `${message}.${storedText}`, details, { cause: err });
  }

  if (err.code === "FORBIDDEN" && err.details?.reason === "not_a_writer") {
    details.hint = `Ask the contract's owner to give your key write access: contract-hub grant ${identity} --role writer`;
    return new ContractError(err.code, `${err.message}.${storedText}`, details, { cause: err });
  }

  // The request the hub refused starts right after the commits it stored (a push of one
  // request stored nothing, whether or not the hub could be asked again). A refusal of the
  // caller or of the hub (an unknown key, a rate limit, a hub down) is about no commit: naming
  // one would send the person to drop commits that go through once that is mended.
  const aboutACommit = !NOT_ABOUT_A_COMMIT.has(err.code);
  const batch =
    aboutACommit && (settled.kind !== "unknown" || unpushed.length <= batchSize)
      ? unpushed.slice(stored, stored + batchSize)
      : [];
  const refused = namedByHub(unpushed, err) ?? refusedCommit(batch, err);
  let what = "";
  if (refused !== undefined) {
    details.refused = { index: refused.index, hash: refused.hash };
    what = `Commit ${refused.index} (${shortHash(refused.hash)}) was refused: `;
  } else if (batch.length > 1) {
    details.refused_among = { from: batch[0]!.index, to: batch[batch.length - 1]!.index };
    what = `One of commits ${batch[0]!.index}–${batch[batch.length - 1]!.index} (sent as one request) was refused: `;
  }
  if (refused !== undefined && details.hint === undefined) {
    details.hint = `Every later push stops at this commit. \`${REPAIR_COMMAND}\` drops the unpushed commits (it lists them); then make again the ones that still apply.`;
  }
  return new ContractError(err.code, `${what}${err.message}${storedText ? `.${storedText}` : ""}`, details, {
    cause: err,
  });
}

/**
 * Takes the hub's copies of whatever it stored (fast-forward, as after a successful push).
 * Never throws: a divergence or an unreachable hub is reported as such.
 */
async function settle(wc: WorkingCopy, client: HubClient): Promise<Settled> {
  try {
    const outcome = await fastForward(wc, (await fetchRemote(client, wc)).commits);
    return { kind: "recorded", stored: outcome.matched, head: wc.origin().head };
  } catch (err) {
    if (isContractError(err, "CONFLICT") && err.details?.reason === "diverged") return { kind: "diverged" };
    return { kind: "unknown" };
  }
}

/**
 * The commit the hub named as refused (`details.commit_hash`, and `commit_index` once it had
 * read the log: docs/api.md), when it is one this push sent.
 */
function namedByHub(unpushed: readonly StoredCommit[], err: ContractError): StoredCommit | undefined {
  const hash = err.details?.commit_hash;
  const index = err.details?.commit_index;
  if (typeof hash === "string") return unpushed.find((c) => c.hash === hash);
  return typeof index === "number" ? unpushed.find((c) => c.index === index) : undefined;
}

/**
 * The commit of the refused request that the hub's error is about, guessed for a hub that
 * does not name it (older than `details.commit_hash`): the request's only commit; else the
 * RECV of the SEND the error names, or the commit it names; else the one commit doing the
 * kind of operation the error is about ("SEND rejected: …"). Undefined when that leaves a choice.
 */
function refusedCommit(batch: readonly StoredCommit[], err: ContractError): StoredCommit | undefined {
  if (batch.length <= 1) return batch[0];
  const text = `${err.message} ${JSON.stringify(err.details ?? {})}`;
  const named = new Set(text.match(/[0-9a-f]{64}/g) ?? []);
  // The commit that received a SEND first is named too, and may be in the same request.
  named.delete(String(err.details?.received_by));
  const byHash = batch.find(
    (c) =>
      named.has(c.hash) ||
      c.data.some((op) => op.method === "recv" && named.has((op.value as RecvValue).send_commit_id)),
  );
  if (byHash !== undefined) return byHash;
  const kind = /^(CREATE|SEND|RECV|REPOST) rejected/.exec(err.message)?.[1]?.toLowerCase();
  if (kind === undefined) return undefined;
  const doing = batch.filter((c) => c.data.some((op) => op.method === kind));
  return doing.length === 1 ? doing[0] : undefined;
}
