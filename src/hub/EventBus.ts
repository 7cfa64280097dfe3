import type { ProposalView } from "../api/responses.js";
import { AnnouncedProposals } from "./proposals/announcedProposals.js";
import type { LiveCommit, Subscription } from "./Subscription.js";

/**
 * Fan-out of stored commits to the subscriptions of their contract. The hub publishes only
 * after the store acknowledged (never a rejected or duplicate commit); ordering and
 * exactly-once delivery are each Subscription's job.
 */
export class EventBus {
  private readonly subscriptions = new Map<string, Set<Subscription>>();
  private readonly proposalListeners = new Map<string, Set<(proposal: unknown) => void>>();
  private readonly announced = new AnnouncedProposals();

  /** Calls `listener` with each new or changed proposal of the contract; returns the function that stops it. */
  onProposal(contractId: string, listener: (proposal: unknown) => void): () => void {
    let set = this.proposalListeners.get(contractId);
    if (set === undefined) this.proposalListeners.set(contractId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.proposalListeners.get(contractId) === set) {
        this.proposalListeners.delete(contractId);
        this.announced.forget(contractId);
      }
    };
  }

  /** The contracts whose proposals someone listens to. */
  proposalContracts(): string[] {
    return [...this.proposalListeners.keys()];
  }

  /** True when someone listens to the contract's proposals. */
  hasProposalListeners(contractId: string): boolean {
    return (this.proposalListeners.get(contractId)?.size ?? 0) > 0;
  }

  /**
   * Delivers a proposal as it now is to the listeners of its contract (a throwing listener does
   * not stop the others), unless it tells nothing this bus announced already: the same change
   * reaches an instance from its own work and again from a notice read late (or twice), and a
   * read begun before a change may end after it (see AnnouncedProposals). Each change is
   * delivered at most once, in order.
   */
  publishProposal(contractId: string, proposal: ProposalView): void {
    const listeners = this.proposalListeners.get(contractId);
    if (listeners === undefined || !this.announced.admit(contractId, proposal)) return;
    for (const listener of listeners) {
      try {
        listener(proposal);
      } catch {
        // A listener's failure is its own (a closed socket); the proposal is stored either way.
      }
    }
  }

  /** True when someone listens to the contract (writers then compute the state views). */
  hasListeners(contractId: string): boolean {
    return (this.subscriptions.get(contractId)?.size ?? 0) > 0;
  }

  /** Registers a subscription; returns the function that removes and closes it. */
  add(sub: Subscription): () => void {
    let set = this.subscriptions.get(sub.contractId);
    if (set === undefined) this.subscriptions.set(sub.contractId, (set = new Set()));
    set.add(sub);
    return () => {
      sub.close();
      set.delete(sub);
      if (set.size === 0 && this.subscriptions.get(sub.contractId) === set) this.subscriptions.delete(sub.contractId);
    };
  }

  /** Delivers stored commits, in log order, to every subscription of their contract. */
  publish(commits: readonly LiveCommit[]): void {
    for (const c of commits) {
      const set = this.subscriptions.get(c.contractId);
      if (set === undefined) continue;
      for (const sub of set) sub.offer(c);
    }
  }

  /** Contracts with at least one subscription (a cross-instance relay re-reads them after a gap). */
  listenedContracts(): string[] {
    return [...this.subscriptions.keys()];
  }

  /** Closes every subscription (hub shutdown). */
  closeAll(): void {
    for (const set of this.subscriptions.values()) for (const sub of set) sub.close();
    this.subscriptions.clear();
    this.proposalListeners.clear();
    this.announced.clear();
  }
}
