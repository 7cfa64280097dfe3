/**
 * The proposal changes no request makes (docs/proposals.md, "Events"): a proposal turns
 * `stale` when the head moves past its parent, and `expired` when its lifetime ends.
 * Subscribers are told of every change of a proposal, these two included, so the hub
 * announces them itself: stale ones after each append it publishes (its own, or another
 * instance's relayed to it), expired ones on a periodic sweep. Its own append of a
 * proposal's exact commit made without the proposal (the store marks it committed) is
 * announced committed here too; another instance's reaches it as that proposal's notice.
 */
import type { StoredCommit } from "../../contract/StoredCommit.js";
import type { ProposalRecord, ProposalStatus } from "../../store/ProposalRecord.js";
import type { HubContext, PublishOrigin } from "../HubContext.js";
import { proposalView } from "./proposalView.js";

/** Past the per-contract cap of open proposals, so one page holds every candidate. */
const PAGE = 1000;

async function announce(hub: HubContext, id: string, status: ProposalStatus, pick: (p: ProposalRecord) => boolean) {
  const listed = await hub.store.listProposals(id, { status, now: hub.now(), limit: PAGE, offset: 0 });
  return publish(hub, id, listed.filter(pick));
}

/** The contract's current state, or null when it is gone. */
async function currentState(hub: HubContext, id: string) {
  const record = await hub.store.getContract(id);
  // The hub's own read: each listener was checked for read access when it subscribed.
  return record === null ? null : hub.stateOf(record);
}

/** Publishes each proposal's view on the contract's current state; returns how many. */
async function publish(hub: HubContext, id: string, changed: readonly ProposalRecord[]): Promise<number> {
  if (changed.length === 0) return 0;
  const state = await currentState(hub, id);
  if (state === null) return 0;
  const now = hub.now();
  for (const p of changed) hub.bus.publishProposal(id, await proposalView(p, state, now, hub.settings));
  return changed.length;
}

/**
 * Announces a proposal another instance sharing the store changed (a PostgreSQL notice names
 * it): read as it is now. A proposal read open on a head the state read after it no longer has
 * is read again: an append of another instance may have completed it in between, and it is
 * committed, not stale. A notice read late or twice shows a state announced already, and the
 * bus drops it (AnnouncedProposals).
 */
export async function announceRelayed(hub: HubContext, id: string, hash: string): Promise<void> {
  if (!hub.bus.hasProposalListeners(id)) return;
  let proposal = await hub.store.getProposal(id, hash);
  if (proposal === null) return;
  const state = await currentState(hub, id);
  if (state === null) return;
  if (proposal.status === "open" && proposal.parent !== state.head) proposal = await hub.store.getProposal(id, hash);
  if (proposal !== null) hub.bus.publishProposal(id, await proposalView(proposal, state, hub.now(), hub.settings));
}

/** Announces every open proposal of a contract again, when notices of changes may have been lost. */
export async function announceOpen(hub: HubContext, id: string): Promise<void> {
  if (hub.bus.hasProposalListeners(id)) await announce(hub, id, "open", () => true);
}

/** How far back a gap of unpublished commits is read for the heads it replaced. */
const GAP_LIMIT = 1000;

/** Tries after a failed read of the proposals an append made stale (100 ms doubling to 5 s between). */
const STALE_RETRIES = 20;

/**
 * Announces the proposals each published append made stale: those open on a head the append
 * replaced. That is the parent of its first commit, and, when commits before it were never
 * published here (another instance's push of several commits reaches this one as its last
 * commit only), every head between the last commit published here and that parent. Older
 * proposals were announced when they went stale. Heads are remembered only for contracts
 * with proposal listeners; the first listener's subscription gives the head it read, so a
 * relayed push that is the first commit published after it still counts from there.
 */
export class StaleAnnouncer {
  readonly #last = new Map<string, { index: number; hash: string }>();

  constructor(private readonly hub: HubContext) {}

  /**
   * A contract's first proposal listener registered, having read `head` (index and hash) just
   * before: what it may hear of goes stale from there on. A head remembered from listeners
   * gone since is replaced (their proposals were forgotten with them).
   */
  listening(id: string, head: { index: number; hash: string }): void {
    this.#last.set(id, head);
  }

  published(id: string, commits: readonly StoredCommit[], origin: PublishOrigin): void {
    const first = commits[0];
    const last = commits.at(-1);
    if (first === undefined || last === undefined) return;
    if (!this.hub.bus.hasProposalListeners(id)) {
      this.#last.delete(id);
      return;
    }
    const seen = this.#last.get(id);
    this.#last.set(id, { index: last.index, hash: last.hash });
    if (first.parent === null) return;
    const parent = first.parent;
    const gap = seen !== undefined && seen.index < first.index - 1 ? seen : undefined;
    const run = (failed: number) => {
      if (!this.hub.bus.hasProposalListeners(id)) return;
      const replaced = new Set([parent]);
      const heads = gap === undefined ? Promise.resolve(replaced) : this.#headsSince(id, gap, first.index, replaced);
      // An append of this hub's own that stored a proposal's exact commit without the proposal
      // (the store marked it committed): announced committed here, before the others go stale.
      const completed = origin === "append" ? this.#completedBy(id, first) : Promise.resolve();
      Promise.all([heads, completed])
        .then(([set]) => announce(this.hub, id, "stale", (p) => set.has(p.parent)))
        .catch((err: unknown) => {
          this.hub.onError(err);
          // The store could not be read (a storage fault): no later append reads these heads
          // again, so try again after a pause (for over a minute, then give up).
          // What was announced meanwhile is not repeated.
          if (failed < STALE_RETRIES) setTimeout(() => run(failed + 1), Math.min(5000, 100 * 2 ** failed)).unref();
        });
    };
    run(0);
  }

  /** Announces the proposal `commit` completed when it was appended directly, if there is one. */
  async #completedBy(id: string, commit: StoredCommit): Promise<void> {
    const p = await this.hub.store.getProposal(id, commit.hash);
    if (p !== null && p.status === "committed" && p.commitIndex === commit.index) await publish(this.hub, id, [p]);
  }

  /** Adds the hashes of the commits from `seen` up to (not including) the one before `index`. */
  async #headsSince(id: string, seen: { index: number; hash: string }, index: number, into: Set<string>) {
    into.add(seen.hash);
    const from = Math.max(seen.index + 1, index - 1 - GAP_LIMIT);
    for await (const c of this.hub.store.readCommits(id, from, index - 1)) into.add(c.hash);
    return into;
  }
}

/**
 * The proposals whose lifetime ended in (`since`, `now`], of the contracts someone listens
 * to; returns how many were announced. Each instance announces to its own subscribers.
 */
export async function announceExpired(hub: HubContext, since: number, now: number): Promise<number> {
  let count = 0;
  for (const id of hub.bus.proposalContracts()) {
    count += await announce(hub, id, "expired", (p) => p.expiresAt > since && p.expiresAt <= now);
  }
  return count;
}
