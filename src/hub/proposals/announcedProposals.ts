/**
 * What a hub instance last announced of each proposal, so that no subscriber hears of the same
 * change twice (docs/proposals.md, "Events"). A proposal's change can reach an instance more
 * than once: the instance announces its own change, and on PostgreSQL reads a proposal again
 * for each notice of another instance's change, as it is at that moment. A notice read late
 * shows a later state, which its own publish or the read of another notice announced already;
 * and a read begun before a change may be published after it. Both are dropped here.
 *
 * A proposal's states only move forward within one lifetime (`created_at`, `expires_at`; a
 * withdrawn or expired proposal proposed again starts a new one): open, its signatures only
 * growing, then expired, stale, withdrawn or committed; committed is final for the hash. An
 * event is announced only if it is newer than the last one announced; an open one after a
 * withdrawal of the same lifetime is announced (it may be the same commit proposed again within
 * the second). Expired may still turn stale; withdrawn and committed end a lifetime.
 */
import type { ProposalView } from "../../api/responses.js";

/** Proposals remembered per contract; past it the longest-unchanged is forgotten. */
const REMEMBERED = 1000;

type Status = ProposalView["status"];

/** How far a lifetime has come: a state never follows one of a higher rank. */
const RANK: Record<Status, number> = { open: 0, expired: 1, stale: 2, withdrawn: 3, committed: 4 };

interface Announced {
  createdAt: number;
  expiresAt: number;
  status: Status;
  signatures: Record<string, string>;
}

/** True when `next` tells nothing `last` did not: a repeat, or an older state read late. */
function repeats(last: Announced, next: ProposalView): boolean {
  if (last.status === "committed") return true;
  if (next.created_at !== last.createdAt || next.expires_at !== last.expiresAt)
    return next.created_at < last.createdAt || (next.created_at === last.createdAt && next.expires_at < last.expiresAt);
  if (next.status === "open" && last.status === "withdrawn") return false;
  if (RANK[next.status] !== RANK[last.status]) return RANK[next.status] < RANK[last.status];
  if (next.status !== "open") return true;
  // Open twice: news only if it holds a signature the last did not (they only grow).
  return Object.entries(next.signatures).every(([k, v]) => last.signatures[k] === v);
}

/** Per contract, per proposal hash, the last state announced. */
export class AnnouncedProposals {
  readonly #contracts = new Map<string, Map<string, Announced>>();

  /** Records `view` as announced and returns true, or false when it repeats what was announced. */
  admit(contractId: string, view: ProposalView): boolean {
    let seen = this.#contracts.get(contractId);
    if (seen === undefined) this.#contracts.set(contractId, (seen = new Map()));
    const last = seen.get(view.hash);
    if (last !== undefined && repeats(last, view)) return false;
    seen.delete(view.hash);
    seen.set(view.hash, {
      createdAt: view.created_at,
      expiresAt: view.expires_at,
      status: view.status,
      signatures: view.signatures,
    });
    if (seen.size > REMEMBERED) seen.delete(seen.keys().next().value as string);
    return true;
  }

  /** Forgets a contract (nobody listens to its proposals on this instance any more). */
  forget(contractId: string): void {
    this.#contracts.delete(contractId);
  }

  clear(): void {
    this.#contracts.clear();
  }
}
