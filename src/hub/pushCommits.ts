import type { Caller } from "../api/Caller.js";
import type { PushBody } from "../api/schemas.js";
import { checkNewContractId, type WireCommit } from "../contract/Commit.js";
import { ContractError, isContractError } from "../contract/ContractError.js";
import type { ContractState } from "../contract/ContractState.js";
import {
  acceptCommit,
  acceptGenesis,
  applyDelta,
  SignatureBatch,
  signerKeysHold,
  startBatchSignatures,
  stateView,
} from "../contract/engine.js";
import { NOT_ABOUT_A_COMMIT } from "../contract/errorCodes.js";
import { IDENTITY_PREFIX, isLowerHex } from "../contract/hex.js";
import type { StoredCommit } from "../contract/StoredCommit.js";
import type { StateView } from "../contract/stateView.js";
import { validateCommitShape } from "../contract/validateCommitShape.js";
import type { NewContract } from "../store/Store.js";
import { hubLedger } from "./assets/hubLedger.js";
import { commitStamp } from "./commitStamp.js";
import { type EngineSettings, engineContext } from "./engineContext.js";
import type { HubContext } from "./HubContext.js";
import { sliceIsDue, yieldSometimes } from "./heavy/TimeSlice.js";

function conflict(head: string | null, message: string, index?: number): ContractError {
  const details: Record<string, unknown> = { reason: "stale_parent", head };
  if (index !== undefined) details.index = index;
  return new ContractError("CONFLICT", message, details);
}

/**
 * `err` naming the commit it refused: `details.commit_hash`, and `details.commit_index`, its
 * index in the contract's log, once the hub has read the log (docs/api.md). The push is
 * refused as a whole, and a client that sent many commits must know which one to drop.
 * Built only on the way out, so a push that succeeds pays nothing for it.
 */
function namingCommit(err: unknown, hash: unknown, index?: number): unknown {
  if (!isContractError(err) || NOT_ABOUT_A_COMMIT.has(err.code)) return err;
  // A commit refused for its shape may carry no usable hash: then nothing names it.
  if (!isLowerHex(hash, 32)) return err;
  const details = { ...err.details, ...(index === undefined ? {} : { commit_index: index }), commit_hash: hash };
  return new ContractError(err.code, err.message, details, { cause: err });
}

/**
 * Push (docs/api.md): atomic; commits already stored are skipped and not counted; the
 * first new commit must extend the head (a genesis owned by the caller for a new contract),
 * each next one the previous. Signatures of the batch are verified in parallel, then the
 * engine decides each commit in order on a clone of the state; the store appends them all at
 * the head that was validated against, and only then do the cache and the subscribers move.
 */
export async function pushCommits(
  hub: HubContext,
  caller: Caller,
  id: string,
  body: PushBody,
): Promise<{ pushed: number; head: string }> {
  const raw: unknown = body?.commits;
  const limits = hub.settings.limits!;
  if (!Array.isArray(raw))
    throw new ContractError("INVALID_REQUEST", "Invalid push: commits must be an array", { reason: "commits_type" });
  if (raw.length > limits.commitsPerPush) {
    throw new ContractError(
      "PAYLOAD_TOO_LARGE",
      `Push holds ${raw.length} commits, over the limit of ${limits.commitsPerPush}`,
      {
        reason: "limit_exceeded",
        limit: "commitsPerPush",
        max: limits.commitsPerPush,
        actual: raw.length,
      },
    );
  }
  if (caller.identity === null)
    throw new ContractError("UNAUTHORIZED", "Authentication is required to push", { reason: "unauthenticated" });
  checkNewContractId(id);
  // Verification starts as each commit is shape-checked, optimistically against the cached
  // state, before the lock: the verification workers check signatures while the event loop
  // checks the rest and waits for the lock. The verdicts count only if the head is still
  // that state's.
  const cached = hub.cache.get(id);
  // Verifying in advance is work done for the caller before the lock checks its rights: a
  // caller who may not write to this contract is refused first, or a reader could make the
  // hub verify a whole push per request (docs/security.md).
  if (cached !== undefined) {
    const record = await hub.store.getContract(id);
    if (record !== null) await hub.accessTo(caller, record, "write");
  }
  const early =
    cached === undefined
      ? null
      : { head: cached.head, batch: new SignatureBatch(cached.data), verdicts: [] as Promise<string[] | undefined>[] };
  // A commit refused here is named by its hash only: its place in the log is read under the lock.
  // The shape checks and, under the lock, the decisions yield to the event loop in the hub's
  // shared slices: 10,000 commits took 0.3 s of shape checks and as long again of decisions
  // in one go each (the verdicts they await come from the workers long before), and GET
  // /health and other contracts waited as long (docs/security.md, "Hostile load").
  let shaping = 0;
  const commits: WireCommit[] = [];
  try {
    for (const [i, c] of raw.entries()) {
      shaping = i;
      // Big model and rule texts are parsed in slices first, one commit at a time; the shape
      // check finds them parsed, and so do the decisions below (the rule memo holds a push's
      // worth of texts, so the first commits' rules are not parsed again when decided).
      const parsing = hub.work.preparse(caller, [c], limits, id);
      if (parsing !== undefined) await parsing;
      const commit = validateCommitShape(c, { contractId: id, limits });
      early?.verdicts.push(early.batch.add(commit));
      commits.push(commit);
      // Only when due: an await per commit sent the signatures out one message each.
      if (sliceIsDue()) await yieldSometimes();
    }
  } catch (err) {
    throw namingCommit(err, (raw[shaping] as { hash?: unknown } | null)?.hash);
  }

  return hub.locks.run(id, async () => {
    // One read of the contract row, and one query for the commits already stored.
    const record = await hub.store.getContract(id);
    const state = record === null ? null : (await hub.accessTo(caller, record, "write")).state;
    let start = 0;
    // A push whose first commit extends the head holds nothing stored yet (the head has no
    // child, and the rest chain from that first commit): the usual case skips the lookup.
    if (state !== null && commits[0]?.parent !== state.head) {
      const known = await hub.store.storedHashes(
        id,
        commits.map((c) => c.hash),
      );
      while (start < commits.length && known.has(commits[start]!.hash)) start++;
    }
    const fresh = commits.slice(start);
    if (fresh.length === 0) {
      if (state === null) throw new ContractError("INVALID_REQUEST", "Push holds no commits", { reason: "empty_push" });
      return { pushed: 0, head: state.head };
    }
    const head = state?.head ?? null;
    let parent = head;
    for (const [i, c] of fresh.entries()) {
      if (c.parent !== parent) {
        throw conflict(
          head,
          i === 0
            ? `Cannot push: the first new commit's parent ${JSON.stringify(c.parent)} is not the head ${JSON.stringify(head)}`
            : `Cannot push: commit ${c.hash} does not extend the previous commit of the push`,
          start + i,
        );
      }
      parent = c.hash;
    }

    // One stamp for the whole push: each commit is then no earlier than the one before it.
    const timestamp = commitStamp(hub.now, state);
    const stored: StoredCommit[] = [];
    const views: (StateView | null)[] = [];
    const wantViews = hub.bus.hasListeners(id);
    let working: ContractState;
    let contract: NewContract | undefined;
    let rest = fresh;
    // One checker for the whole push: its model checks share one budget.
    const settings: EngineSettings = Object.assign({}, hub.settings, hub.work.forRequest(caller));
    const storedLength = state?.length ?? 0;
    // One ledger for the whole push, so each commit sees the asset effects of the earlier ones
    // (handed to the engine once the genesis, if any, is decided).
    const ledger = hubLedger(hub, caller, id, () => working.data, state === null);
    // From here on a refusal is about one commit: the one after those accepted so far.
    try {
      if (state === null) {
        const ctx = engineContext(hub.store, id, 0, [], settings, { timestamp });
        const genesis = await acceptGenesis(id, fresh[0], ctx);
        if (genesis.state.owner !== IDENTITY_PREFIX + caller.identity) {
          throw new ContractError("FORBIDDEN", "A pushed genesis must be owned by the authenticated identity", {
            reason: "owner_mismatch",
          });
        }
        working = genesis.state;
        stored.push(genesis.stored);
        views.push(wantViews ? stateView(working) : null);
        contract = { owner: caller.identity!, createdAt: timestamp, private: false };
        rest = fresh.slice(1);
      } else {
        working = state.clone();
      }
      // Signatures verify on the verification workers while the commits are decided in order here: each
      // commit waits only for its own verification. The batch was shape-checked above. Verdicts
      // started on another head (a push sent while the previous one was still appending) count
      // for each commit whose signers still resolve to the keys they were verified with.
      const recheckKeys = early !== null && (state?.head !== early.head || start > 0);
      const verifying =
        early !== null && state !== null
          ? early.verdicts.slice(start)
          : startBatchSignatures(working, rest, { prevalidated: true });
      settings.assets = ledger;
      // One context for the push (its log view reads `stored` as it grows); only the verified
      // signers change from commit to commit. Built per commit, it was the event loop's
      // costliest function of a push after the collector (docs/benchmarks.md, third round).
      const ctx = engineContext(hub.store, id, storedLength, stored, settings, {
        timestamp,
        prevalidated: true,
        verifyOnThreadpool: true,
      });
      for (const [i, c] of rest.entries()) {
        let verified = await verifying[i];
        if (recheckKeys && !signerKeysHold(c, early!.batch.keys[start + i], working.data)) verified = undefined;
        if (verified === undefined) delete ctx.verifiedSigners;
        else ctx.verifiedSigners = verified;
        const accepted = await acceptCommit(working, c, ctx);
        applyDelta(working, accepted.delta);
        stored.push(accepted.stored);
        views.push(wantViews ? stateView(working) : null);
        if (sliceIsDue()) await yieldSometimes();
      }
    } catch (err) {
      throw namingCommit(err, fresh[stored.length]?.hash, storedLength + stored.length);
    }

    try {
      await hub.append(id, head, stored, ledger.extras(contract ? { contract } : {}), caller);
    } catch (err) {
      // A refusal only the store's constraints found (an asset race) names its commit by hash.
      const hash = isContractError(err) ? err.details?.commit_hash : undefined;
      const at = stored.findIndex((c) => c.hash === hash);
      throw at < 0 ? err : namingCommit(err, hash, storedLength + at);
    }
    hub.appended(working, stored.length);
    hub.publish(id, stored, views);
    return { pushed: stored.length, head: working.head };
  });
}
