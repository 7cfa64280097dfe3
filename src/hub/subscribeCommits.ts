import type { Caller } from "../api/Caller.js";
import type { CommitEvent, ProposalView } from "../api/responses.js";
import { ContractError, isContractError } from "../contract/ContractError.js";
import { decodeHash } from "../contract/hex.js";
import type { HubContext } from "./HubContext.js";
import { yieldSometimes } from "./heavy/TimeSlice.js";
import { nonNegativeInteger } from "./pageQuery.js";
import { replayEvents } from "./replayEvents.js";
import { type LostReason, Subscription } from "./Subscription.js";

/**
 * Subscribes `listener` to a contract's commits from index or hash `since` (exclusive of the
 * hash's own commit) or from now; returns the unsubscribe function. Commits stored before the
 * subscription registered are replayed from the store, so none is missed or repeated.
 */
export async function subscribeCommits(
  hub: HubContext,
  caller: Caller,
  id: string,
  since: number | string | undefined,
  listener: (event: CommitEvent) => void,
  onError: (err: unknown) => void,
  onClosed?: (reason: LostReason) => void,
): Promise<() => void> {
  const { record } = await hub.access(caller, id, "read");
  let from = record.length;
  if (typeof since === "string") {
    decodeHash(since, "since");
    const c = await hub.store.getCommitByHash(id, since);
    if (c === null)
      throw new ContractError("NOT_FOUND", `Commit ${since} not found in ${id}`, { reason: "since_not_found" });
    from = c.index + 1;
  } else if (since !== undefined) {
    from = nonNegativeInteger(since, "since")!;
    // An index past the next one names no commit, like an unknown hash: accepted, it would
    // silently drop every live commit below it.
    if (from > record.length)
      throw new ContractError(
        "NOT_FOUND",
        `Cannot subscribe from index ${from}: ${id} has ${record.length} commits (the next is index ${record.length})`,
        { reason: "since_not_found", since: from, length: record.length },
      );
  }
  // A replay is expensive work of the subscriber: admitted by its budget, run in slices
  // charged to it, and stopped as soon as the subscription closes (its socket went away).
  if (from < record.length) hub.work.admit(caller);
  let sub: Subscription | undefined;
  const slice = hub.work.slice(caller, () => sub?.isClosed === true);
  const settings = { ...hub.settings, tick: slice.tick };
  const source = async function* (a: number, b: number) {
    const cached = hub.cache.get(id);
    slice.begin();
    try {
      yield* replayEvents(hub.store, id, a, b, settings, cached && cached.length <= a ? cached.clone() : undefined);
    } finally {
      slice.done();
    }
  };
  // On a private contract, access follows the state (a seat, a grant): re-checked before events.
  const gate = record.private ? () => accessLost(hub, caller, id) : null;
  // Live events yield in the shared slices: one commit may fan out to thousands of subscriptions.
  sub = new Subscription(
    id,
    from,
    record.length,
    listener,
    source,
    onError,
    gate,
    (reason) => onClosed?.(reason),
    yieldSometimes,
  );
  const unsubscribe = hub.bus.add(sub);
  // Commits published between our read and the registration are stored: replay them too.
  const latest = await hub.store.getContract(id);
  if (latest !== null) sub.catchUpTo(latest.length);
  // Deliver after the caller got its unsubscribe handle (and could answer the subscribe request).
  setImmediate(() => sub.start());
  return unsubscribe;
}

/**
 * Calls `listener` with each new or changed proposal of contract `id`; returns the function
 * that stops it. On a private contract, each proposal waits for a check that the subscriber
 * may still read the contract (a grant withdrawn through another instance tells this one
 * nothing); one who may not is sent nothing more and `onClosed` is told. The checks run one
 * after another, so proposals keep their order.
 */
export async function subscribeProposalEvents(
  hub: HubContext,
  caller: Caller,
  id: string,
  listener: (proposal: ProposalView) => void,
  onError: (err: unknown) => void,
  onClosed?: (reason: LostReason) => void,
): Promise<() => void> {
  const { record } = await hub.access(caller, id, "read");
  // The head read before registering is where this contract's proposals start going stale
  // for its first listener; commits published in between are read back from it.
  const listen = (l: (proposal: unknown) => void) => {
    const first = !hub.bus.hasProposalListeners(id);
    const stop = hub.bus.onProposal(id, l);
    if (first) hub.onProposalListening(id, { index: record.length - 1, hash: record.head });
    return stop;
  };
  if (!record.private) return listen(listener as (proposal: unknown) => void);
  let stopped = false;
  let checks = Promise.resolve();
  const stop = listen((proposal) => {
    checks = checks
      .then(async () => {
        if (stopped) return;
        const lost = await accessLost(hub, caller, id);
        if (stopped) return;
        if (lost === null) return listener(proposal as ProposalView);
        stopped = true;
        stop();
        onClosed?.(lost);
      })
      .catch(onError);
  });
  return () => {
    stopped = true;
    stop();
  };
}

/**
 * Why `caller` may no longer read contract `id` at its stored head, or null when it may: its
 * access key was revoked (perhaps through another hub instance, which tells this one nothing),
 * or its identity lost read access. Other failures propagate.
 */
async function accessLost(hub: HubContext, caller: Caller, id: string): Promise<LostReason | null> {
  if (caller.accessKey !== null) {
    const key = await hub.store.getAccessKey(caller.accessKey);
    if (key !== null && key.revokedAt !== null) return "access_key_revoked";
  }
  try {
    await hub.access(caller, id, "read");
    return null;
  } catch (err) {
    if (isContractError(err, "NOT_FOUND")) return "access_lost";
    throw err;
  }
}
