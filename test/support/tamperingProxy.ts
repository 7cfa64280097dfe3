/**
 * A lying hub (or an unreachable witness) for the client-check tests: a loopback HTTP proxy in
 * front of a real process that forwards every request and lets a test rewrite the answers
 * of chosen routes. With no rule set it is a faithful proxy.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** An answer as the proxy sends it. */
export interface Answer {
  status: number;
  type: string;
  body: string;
  /** Sent instead of `body` when set: bytes a string cannot carry (not UTF-8). */
  bytes?: Buffer;
}

/**
 * Rewrites the upstream answer for `path` (without the query), or returns it unchanged; null
 * never answers: the connection stays open, unanswered, until the client or `close` ends it
 * (a hub that accepts a request and hangs).
 */
export type Rule = (path: string, upstream: Answer) => Answer | null;

export interface TamperingProxy {
  url: string;
  /** The rule applied from now on (null: forward faithfully). */
  rule: Rule | null;
  close(): Promise<void>;
}

/** A JSON answer. */
export const json = (status: number, body: unknown): Answer => ({
  status,
  type: "application/json",
  body: JSON.stringify(body),
});

export async function startTamperingProxy(target: string): Promise<TamperingProxy> {
  const proxy: TamperingProxy = { url: "", rule: null, close: async () => {} };
  const server: Server = createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = { ...req.headers } as Record<string, string>;
      delete headers.host;
      delete headers["content-length"];
      delete headers.connection;
      const up = await fetch(target + (req.url ?? "/"), {
        method: req.method,
        headers,
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      });
      let answer: Answer = {
        status: up.status,
        type: up.headers.get("content-type") ?? "application/octet-stream",
        body: await up.text(),
      };
      const path = (req.url ?? "/").split("?")[0]!;
      const rewritten = proxy.rule === null ? answer : proxy.rule(path, answer);
      if (rewritten === null) return;
      answer = rewritten;
      res.writeHead(answer.status, { "content-type": answer.type });
      res.end(answer.bytes ?? answer.body);
    } catch (err) {
      res.writeHead(502, { "content-type": "text/plain" });
      res.end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
