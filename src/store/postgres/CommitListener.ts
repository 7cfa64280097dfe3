import pg from "pg";
import { backendPid, clientConfig, type PgChannels, type PgLocation, pgChannels } from "./pgPool.js";

/** A commit notification: the contract and the index of the last commit of one append. */
export interface CommitNotice {
  contractId: string;
  index: number;
  /** Backend process that sent it (lets a store recognise its own appends). */
  processId: number;
}

/** A proposal notification: the contract and the hash of a proposal that changed. */
export interface ProposalNotice {
  contractId: string;
  hash: string;
  processId: number;
}

export interface CommitListenerHandlers {
  onCommit: (notice: CommitNotice) => void;
  onProposal?: (notice: ProposalNotice) => void;
  /**
   * Called after the connection was re-established: NOTIFY has no replay, so whatever was
   * sent while it was down is lost and the consumer must re-read what it cares about.
   */
  onReconnect?: () => void;
  onError?: (err: unknown) => void;
}

/** `<contract_id>:<tail>` split at its last colon (contract ids may hold colons); null without an id. */
function splitPayload(payload: string | undefined): { contractId: string; tail: string } | null {
  const at = payload?.lastIndexOf(":") ?? -1;
  if (payload === undefined || at <= 0) return null;
  return { contractId: payload.slice(0, at), tail: payload.slice(at + 1) };
}

/** Parses `<contract_id>:<index>`; null for anything else. */
export function parseCommitPayload(payload: string | undefined): { contractId: string; index: number } | null {
  const split = splitPayload(payload);
  const index = Number(split?.tail);
  return split !== null && /^[0-9]+$/.test(split.tail) && Number.isSafeInteger(index)
    ? { contractId: split.contractId, index }
    : null;
}

/** Parses `<contract_id>:<64 hex>`; null for anything else. */
export function parseProposalPayload(payload: string | undefined): { contractId: string; hash: string } | null {
  const split = splitPayload(payload);
  return split !== null && /^[0-9a-f]{64}$/.test(split.tail)
    ? { contractId: split.contractId, hash: split.tail }
    : null;
}

/**
 * One dedicated connection (not a pool client: it lives as long as the store) that LISTENs
 * to the commit and proposal channels and reconnects with capped backoff when the server or network drops it.
 */
export class CommitListener {
  private client: pg.Client | null = null;
  private closed = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private attempt = 0;
  private readonly channels: PgChannels;

  private constructor(
    private readonly location: PgLocation,
    private readonly handlers: CommitListenerHandlers,
  ) {
    this.channels = pgChannels(location.schema);
  }

  /** Connects and LISTENs; resolves once notifications flow (the first connection must succeed). */
  static async start(location: PgLocation, handlers: CommitListenerHandlers): Promise<CommitListener> {
    const listener = new CommitListener(location, handlers);
    await listener.connect();
    return listener;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client(clientConfig(this.location, "contract-hub-listen"));
    client.on("notification", (n) => {
      if (n.channel === this.channels.commits) {
        const parsed = parseCommitPayload(n.payload);
        if (parsed !== null) this.handlers.onCommit({ ...parsed, processId: n.processId });
      } else if (n.channel === this.channels.proposals) {
        const parsed = parseProposalPayload(n.payload);
        if (parsed !== null) this.handlers.onProposal?.({ ...parsed, processId: n.processId });
      }
    });
    client.on("error", (err) => this.lost(client, err));
    client.on("end", () => this.lost(client, null));
    try {
      await client.connect();
      await client.query(`LISTEN "${this.channels.commits}"`);
      await client.query(`LISTEN "${this.channels.proposals}"`);
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    if (this.closed) {
      await client.end();
      return;
    }
    this.client = client;
    this.attempt = 0;
  }

  /** The backend pid of the listening connection (tests kill it to exercise reconnection). */
  get pid(): number | null {
    return this.client === null ? null : backendPid(this.client);
  }

  private lost(client: pg.Client, err: unknown): void {
    if (this.client !== client || this.closed) return;
    this.client = null;
    if (err !== null) this.handlers.onError?.(err);
    client.end().catch(() => {});
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer !== null) return;
    const delay = Math.min(5000, 50 * 2 ** this.attempt++);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect().then(
        () => {
          if (!this.closed) this.handlers.onReconnect?.();
        },
        (err) => {
          this.handlers.onError?.(err);
          this.scheduleRetry();
        },
      );
    }, delay);
  }

  /** Stops listening and closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }
}
