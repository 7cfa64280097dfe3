import type { CommitEvent } from "../api/responses.js";
import { type StoredCommit, toLogEntry } from "../contract/StoredCommit.js";
import type { StateView } from "../contract/stateView.js";

/** A stored commit as the writer publishes it; `view` is null when the writer did not compute it. */
export interface LiveCommit {
  contractId: string;
  stored: StoredCommit;
  view: StateView | null;
}

/** Reads events `[from, to)` from the store (with the state after each commit). */
export type EventSource = (from: number, to: number) => AsyncIterable<CommitEvent>;

/** Why the hub ended a subscription: its identity lost read access, or its access key was revoked. */
export type LostReason = "access_lost" | "access_key_revoked";

/**
 * Whether the subscriber may still read the contract (asked before an event is delivered,
 * see Subscription): null when it may, else why not, which ends the subscription before that event.
 */
export type AccessGate = () => Promise<LostReason | null>;

/**
 * The log entry of a live commit, made once for all its subscriptions: they then share it and
 * its serialized text (SocketSession), as they share the state view published with it.
 */
const ENTRIES = new WeakMap<StoredCommit, ReturnType<typeof toLogEntry>>();
function sharedEntry(stored: StoredCommit) {
  let entry = ENTRIES.get(stored);
  if (entry === undefined) {
    entry = toLogEntry(stored);
    ENTRIES.set(stored, entry);
  }
  return entry;
}

/** Events delivered from one replay between two access checks (a grant may change on another instance). */
const CHECK_EVERY = 256;

/**
 * One subscriber's ordered, exactly-once view of a contract's log (docs/api.md). It keeps
 * the next index it owes the listener: live commits below it are duplicates and dropped;
 * a live commit above it (a replay not finished, another instance's writes, a commit
 * published without its state) makes it read the gap from the store first. So delivery is
 * in log order with neither gaps nor duplicates, whatever order publishers and replays race in.
 */
export class Subscription {
  private next: number;
  private target: number;
  private readonly pending: LiveCommit[] = [];
  private pumping = false;
  private closed = false;
  private unchecked = 0;

  constructor(
    readonly contractId: string,
    from: number,
    /** Stored length when subscribing: everything below it is replayed from the store. */
    storedLength: number,
    private readonly listener: (event: CommitEvent) => void,
    private readonly source: EventSource,
    private readonly onError: (err: unknown) => void,
    /** Re-checks read access (private contracts); on a refusal the subscription closes and `onLost` is told. */
    private readonly gate: AccessGate | null = null,
    private readonly onLost: (reason: LostReason) => void = () => {},
    /**
     * Awaited before each live event (the hub's shared slices). A commit is offered to every
     * subscription of its contract in one go, and each delivery (serializing the event, writing
     * it to the socket) ran in the same chain of microtasks: 20,000 subscriptions, which one
     * anonymous socket could open, held the event loop ~2.4 s per commit. With the tick the
     * fan-out yields to other requests once the slice is used up.
     */
    private readonly tick: () => Promise<void> | void = () => {},
  ) {
    this.next = from;
    this.target = storedLength;
  }

  /** Starts delivering (the replay of missed commits first). */
  start(): void {
    void this.pump();
  }

  /** Makes sure every stored commit below `length` is delivered (replayed when not offered live). */
  catchUpTo(length: number): void {
    if (length > this.target) this.target = length;
  }

  /** Offers a live commit (called by the EventBus after the store acknowledged it). */
  offer(commit: LiveCommit): void {
    if (this.closed || commit.stored.index < this.next) return;
    // The head moved: a replay under way re-checks access at its next event.
    this.unchecked = CHECK_EVERY;
    this.pending.push(commit);
    void this.pump();
  }

  /** Stops delivery; nothing is delivered after it returns. */
  close(): void {
    this.closed = true;
    this.pending.length = 0;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Access follows the state: before a live event, before the first event of a replay,
   * after a live commit arrived during a replay, and every CHECK_EVERY replayed events, the
   * gate is asked whether the subscriber may read the contract at its stored head; one that
   * lost read access is cut off before that event. (The head includes every commit a replay
   * delivers, so a seat change inside the replayed range is seen at its first check.)
   */
  private async admits(live: boolean): Promise<boolean> {
    if (this.gate === null) return true;
    const due = live || this.unchecked === 0 || this.unchecked >= CHECK_EVERY;
    if (!due) {
      this.unchecked++;
      return true;
    }
    this.unchecked = 1;
    const lost = await this.gate();
    if (lost === null) return true;
    if (!this.closed) {
      this.close();
      this.onLost(lost);
    }
    return false;
  }

  private emit(event: CommitEvent): void {
    if (this.closed || event.commit.index !== this.next) return;
    this.next++;
    try {
      this.listener(event);
    } catch (err) {
      this.onError(err);
    }
  }

  private async pump(): Promise<void> {
    if (this.pumping || this.closed) return;
    this.pumping = true;
    try {
      while (!this.closed) {
        if (this.target > this.next) {
          this.unchecked = 0;
          for await (const event of this.source(this.next, this.target)) {
            if (this.closed || event.commit.index !== this.next) return;
            if (!(await this.admits(false))) return;
            this.emit(event);
          }
          // A short read (should not happen: the target was stored) must not loop forever.
          if (this.target > this.next) throw new Error(`commits ${this.next}..${this.target} missing from the store`);
          continue;
        }
        const live = this.pending.shift();
        if (live === undefined) break;
        const index = live.stored.index;
        if (index < this.next) continue;
        if (index > this.next || live.view === null) {
          // Fill the gap (or compute the missing state) from the store, then come back to it.
          this.target = index + 1;
          continue;
        }
        await this.tick();
        if (this.closed) return;
        const event = { contract_id: live.contractId, commit: sharedEntry(live.stored), state: live.view };
        if (!(await this.admits(true))) return;
        this.emit(event);
      }
    } catch (err) {
      // A replay stopped because the subscription closed is the expected end, not a failure.
      const stopped = this.closed && err instanceof Error && err.name === "WorkStopped";
      this.close();
      if (!stopped) this.onError(err);
    } finally {
      this.pumping = false;
    }
  }
}
