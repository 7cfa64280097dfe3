/**
 * A raw `/ws` round trip for tests that speak the socket's JSON-RPC themselves (batches,
 * exact error objects) rather than through HubSocket.
 */
import type WebSocket from "ws";

/** Sends one frame and resolves with the first JSON answer that is not a notification. */
export function socketCall(ws: WebSocket, frame: unknown): Promise<unknown> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const message = JSON.parse(String(data));
      if (!Array.isArray(message) && message.method !== undefined) return;
      ws.off("message", onMessage);
      resolve(message);
    };
    ws.on("message", onMessage);
    ws.send(JSON.stringify(frame));
  });
}
