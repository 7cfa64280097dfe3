import type { StoredCommit } from "../../contract/StoredCommit.js";
import type { CommitListener, CommitNotice, ProposalNotice } from "./CommitListener.js";
import type { PostgresStore } from "./PostgresStore.js";

/**
 * What the relay feeds: the hub's EventBus, structurally (the store layer does not import
 * the hub). A live commit with `view: null` makes each subscription read the commits it
 * has not delivered yet, up to that one, from the store, and compute their states.
 */
export interface CommitSink {
  hasListeners(contractId: string): boolean;
  publish(commits: readonly { contractId: string; stored: StoredCommit; view: null }[]): void;
  /** Contracts with subscribers (re-read after the LISTEN connection was lost, if offered). */
  listenedContracts?(): Iterable<string>;
  /** A proposal another instance changed: the sink reads it and tells its own subscribers. */
  proposalChanged?(contractId: string, hash: string): Promise<void>;
  /** Proposal notices may have been lost (the connection dropped): re-announce the contract's open ones. */
  proposalsMissed?(contractId: string): Promise<void>;
}

/** A running relay; `close()` stops listening. */
export interface CommitRelay {
  close(): Promise<void>;
  /** Commit notices seen from other instances (tests and metrics). */
  readonly received: number;
  /** Proposal notices seen from other instances. */
  readonly proposalsReceived: number;
  /** Reconnections of the LISTEN connection so far. */
  readonly reconnects: number;
  /** Backend pid of the LISTEN connection, null while reconnecting. */
  readonly pid: number | null;
}

/** The pause before reading again after `failed` reads in a row failed (ms): 100 doubling to 5 s. */
const backoff = (failed: number) => Math.min(5000, 50 * 2 ** failed);

/**
 * Feeds commits appended through OTHER hub instances into this instance's EventBus
 * (docs/api.md): a notice names only the contract and the index of an append's last
 * commit; the commit is read from the store. The local hub publishes its own appends
 * itself, so notices from this store's own connections are skipped. Per contract, notices
 * are coalesced to the highest index and handled one at a time, so a burst of appends
 * costs one read; subscriptions drop what they already delivered, so a notice arriving
 * after the local publish (or twice) never produces a duplicate event. Proposal notices
 * (`<contract_id>:<hash>`) go to the sink, which reads the proposal as it is now; notices for
 * one proposal arriving while it is read are coalesced into one more read. A read that fails
 * (the database briefly unreachable) is tried again with backoff: a notice is delivered once.
 */
export async function relayCommits(
  store: PostgresStore,
  sink: CommitSink,
  onError: (err: unknown) => void = () => {},
): Promise<CommitRelay> {
  const highest = new Map<string, number>();
  const running = new Set<string>();
  let received = 0;
  let proposalsReceived = 0;
  let reconnects = 0;
  /** Proposals being read (`<contract>:<hash>`), each with whether another notice came meanwhile. */
  const proposals = new Map<string, boolean>();

  /** Reads failed in a row per contract, and the timers of the retries waiting. */
  const failures = new Map<string, number>();
  const waiting = new Map<string, NodeJS.Timeout>();
  let closed = false;

  const drain = async (contractId: string) => {
    running.add(contractId);
    let index = highest.get(contractId);
    try {
      for (; index !== undefined; index = highest.get(contractId)) {
        highest.delete(contractId);
        if (!sink.hasListeners(contractId)) continue;
        const stored = await store.getCommitAt(contractId, index);
        if (stored !== null) sink.publish([{ contractId, stored, view: null }]);
      }
      failures.delete(contractId);
    } catch (err) {
      onError(err);
      // A notice has no second delivery: keep it and read again later (a storage fault
      // passes), or the commit would reach this instance's subscribers only with the next one.
      if (index !== undefined && index > (highest.get(contractId) ?? -1)) highest.set(contractId, index);
      const failed = (failures.get(contractId) ?? 0) + 1;
      failures.set(contractId, failed);
      const timer = setTimeout(() => {
        waiting.delete(contractId);
        if (!closed && !running.has(contractId) && highest.has(contractId)) void drain(contractId);
      }, backoff(failed));
      timer.unref();
      waiting.set(contractId, timer);
    } finally {
      running.delete(contractId);
    }
  };

  const notice = (contractId: string, index: number) => {
    if (index <= (highest.get(contractId) ?? -1)) return;
    highest.set(contractId, index);
    // While a failed read waits for its retry, the new notice waits with it.
    if (!running.has(contractId) && !waiting.has(contractId)) void drain(contractId);
  };

  const onCommit = (n: CommitNotice) => {
    if (store.isOwnBackend(n.processId)) return;
    received++;
    notice(n.contractId, n.index);
  };

  const onProposal = (n: ProposalNotice) => {
    if (store.isOwnBackend(n.processId) || sink.proposalChanged === undefined) return;
    proposalsReceived++;
    const key = `${n.contractId}:${n.hash}`;
    if (proposals.has(key)) {
      proposals.set(key, true);
      return;
    }
    const read = async () => {
      let failed = 0;
      do {
        proposals.set(key, false);
        try {
          await sink.proposalChanged?.(n.contractId, n.hash);
          failed = 0;
        } catch (err) {
          onError(err);
          // As a commit's: the change is read again after a pause, not lost with the read.
          proposals.set(key, true);
          await new Promise((resolve) => setTimeout(resolve, backoff(++failed)).unref());
        }
      } while (proposals.get(key) === true && !closed);
      proposals.delete(key);
    };
    void read();
  };

  // NOTIFY has no replay: after a lost connection, re-read the head of every listened
  // contract (subscriptions fetch whatever they missed in between) and re-announce its open
  // proposals, since which of them changed meanwhile cannot be known. A read that fails here
  // is tried again with backoff while someone listens: nothing else would catch up.
  const catchUpCommits = (contractId: string, failed = 0) => {
    store.getContract(contractId).then(
      (record) => {
        if (record !== null && record.length > 0) notice(contractId, record.length - 1);
      },
      (err) => {
        onError(err);
        const again = () => {
          if (!closed && sink.hasListeners(contractId)) catchUpCommits(contractId, failed + 1);
        };
        setTimeout(again, backoff(failed + 1)).unref();
      },
    );
  };
  const catchUpProposals = (contractId: string, failed = 0) => {
    sink.proposalsMissed?.(contractId).catch((err) => {
      onError(err);
      const again = () => {
        if (!closed && sink.hasListeners(contractId)) catchUpProposals(contractId, failed + 1);
      };
      setTimeout(again, backoff(failed + 1)).unref();
    });
  };
  const onReconnect = () => {
    reconnects++;
    for (const contractId of sink.listenedContracts?.() ?? []) {
      catchUpCommits(contractId);
      catchUpProposals(contractId);
    }
  };

  const listener: CommitListener = await store.listenCommits({ onCommit, onProposal, onReconnect, onError });
  return {
    close: () => {
      closed = true;
      for (const timer of waiting.values()) clearTimeout(timer);
      return listener.close();
    },
    get received() {
      return received;
    },
    get proposalsReceived() {
      return proposalsReceived;
    },
    get reconnects() {
      return reconnects;
    },
    get pid() {
      return listener.pid;
    },
  };
}
