/**
 * Live updates over the hub's WebSocket (docs/api.md): `subscribe {contract_id, since}`
 * and `commit` notifications. After a dropped connection it subscribes again from the next
 * index it has not seen, so the page misses nothing and sees nothing twice; proposals, which
 * are not replayed, are read again after every subscription.
 */

export interface CommitNotice {
  contract_id: string;
  commit: { index: number; hash: string; method: string; [k: string]: unknown };
  state: unknown;
}

export type LiveStatus = "connecting" | "live" | "offline";

/** Subscribes from index `since`; returns a function that stops it. */
export function subscribeCommits(
  contractId: string,
  since: number,
  onCommit: (n: CommitNotice) => void,
  onStatus: (s: LiveStatus) => void,
  onProposal?: () => void,
): () => void {
  let next = since;
  let socket: WebSocket | null = null;
  let stopped = false;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const connect = () => {
    onStatus("connecting");
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
    const ws = new WebSocket(url);
    socket = ws;
    ws.onmessage = (ev) => {
      let msg: { method?: string; id?: number; result?: unknown; error?: unknown; params?: CommitNotice };
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
      } else if (msg.id === 1) {
        if (msg.error) {
          // Refused (the rate limit, the work budget a replay counts against, a hub shutting down):
          // the socket would sit open and silent, so close it; onclose tries again on a new one.
          onStatus("offline");
          ws.close();
        } else {
          onStatus("live");
          // Missed commits are replayed from `since`; proposal events are not. Proposals made
          // before this subscription (while the page loaded, or the connection was down) are
          // caught up by reading them again.
          onProposal?.();
        }
      } else if (msg.method === "proposal") {
        onProposal?.();
      } else if (msg.method === "commit" && msg.params && msg.params.commit.index >= next) {
        next = msg.params.commit.index + 1;
        onCommit(msg.params);
      }
    };
    ws.onclose = () => {
      if (stopped) return;
      onStatus("offline");
      retry = setTimeout(connect, 2000);
    };
  };
  connect();
  return () => {
    stopped = true;
    clearTimeout(retry);
    socket?.close();
  };
}
