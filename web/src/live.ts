/**
 * Live updates over the hub's WebSocket (docs/api.md): `subscribe {contract_id, since}`
 * and `commit` notifications. After a dropped connection it subscribes again from the next
 * index it has not seen, so the page misses nothing and sees nothing twice; proposals, which
 * are not replayed, are read again after every subscription. The next attempt waits as
 * reconnectDelay decides: longer after each failure in a row, never less than a refusal's
 * retry hint.
 */
import { reconnectDelay } from "./reconnectDelay.js";

export interface CommitNotice {
  contract_id: string;
  commit: { index: number; hash: string; method: string; [k: string]: unknown };
  state: unknown;
}

export type LiveStatus = "connecting" | "live" | "offline";

export interface LiveSubscription {
  /** Ends the subscription: closes the socket and any attempt waiting. */
  stop(): void;
  /**
   * While "offline", connects at once instead of at the end of the wait (the visitor asked, so a
   * hub that came back is followed now); a no-op otherwise. A failure still counts in the backoff.
   */
  retryNow(): void;
}

/**
 * Subscribes from index `since`. `onStatus` is told "offline" with the milliseconds until the
 * next attempt.
 */
export function subscribeCommits(
  contractId: string,
  since: number,
  onCommit: (n: CommitNotice) => void,
  onStatus: (s: LiveStatus, retryInMs?: number) => void,
  onProposal?: () => void,
): LiveSubscription {
  let next = since;
  let socket: WebSocket | null = null;
  let stopped = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  /** Attempts that failed since the last subscription the hub accepted. */
  let failures = 0;

  const retryLater = (refusal?: unknown) => {
    if (stopped) return;
    failures++;
    const ms = reconnectDelay(failures, refusal, Math.random());
    retry = setTimeout(() => {
      retry = undefined;
      connect();
    }, ms);
    // Told after the timer is set, so a stop from inside onStatus clears it.
    onStatus("offline", ms);
  };

  const connect = () => {
    onStatus("connecting");
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
    const ws = new WebSocket(url);
    socket = ws;
    ws.onmessage = (ev) => {
      let msg: { method?: string; id?: number | null; result?: unknown; error?: unknown; params?: CommitNotice };
      try {
        msg = JSON.parse(String(ev.data));
      } catch {
        return;
      }
      if (msg.method === "hello") {
        ws.send(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "subscribe",
            params: { contract_id: contractId, since: next },
          }),
        );
      } else if (msg.error && (msg.id === 1 || msg.id === null)) {
        // Refused (the rate limit, the work budget a replay counts against, a storage fault):
        // the socket would sit open and silent, so close it and try again on a new one, no
        // sooner than the hub's hint. The rate limit refuses a frame before reading it, so its
        // answer has id null; the subscribe is the only request this socket sends.
        ws.onmessage = null;
        ws.onclose = null;
        ws.close();
        retryLater(msg.error);
      } else if (msg.id === 1) {
        failures = 0;
        onStatus("live");
        // Missed commits are replayed from `since`; proposal events are not. Proposals made
        // before this subscription (while the page loaded, or the connection was down) are
        // caught up by reading them again.
        onProposal?.();
      } else if (msg.method === "proposal") {
        onProposal?.();
      } else if (msg.method === "commit" && msg.params && msg.params.commit.index >= next) {
        next = msg.params.commit.index + 1;
        onCommit(msg.params);
      }
    };
    ws.onclose = () => retryLater();
  };
  connect();
  return {
    stop() {
      stopped = true;
      clearTimeout(retry);
      socket?.close();
    },
    retryNow() {
      if (stopped || retry === undefined) return;
      clearTimeout(retry);
      retry = undefined;
      connect();
    },
  };
}
