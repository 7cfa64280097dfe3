/**
 * A server on loopback answering every request 200 with `HUGE` bytes: a hostile or wrong peer
 * (hub or witness) for the tests that show an answer is read only up to its limit. It counts
 * what it could write, so a test can tell the reader stopped before the end.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export const HUGE = 16 * 1024 * 1024;

export interface HugeAnswers {
  url: string;
  /** Bytes written so far, over every request. */
  written: () => number;
  close: () => Promise<void>;
}

/**
 * `fill`: the repeated byte (a JSON body of white space needs " "); `contentType`; `announce`:
 * send a content-length (else chunked, no length known); `tail`: written after the filler.
 */
export async function hugeAnswers(
  opts: { fill?: string; contentType?: string; announce?: boolean; tail?: string } = {},
): Promise<HugeAnswers> {
  const chunk = Buffer.alloc(64 * 1024, opts.fill ?? "a");
  const tail = opts.tail ?? "";
  let written = 0;
  const server: Server = createServer((_req, res) => {
    const length = opts.announce ? { "content-length": HUGE + Buffer.byteLength(tail) } : {};
    res.writeHead(200, { "content-type": opts.contentType ?? "text/plain; charset=utf-8", ...length });
    let sent = 0;
    const more = () => {
      while (sent < HUGE) {
        sent += chunk.length;
        written += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", more);
      }
      res.end(tail);
    };
    res.on("close", () => {
      sent = HUGE;
    });
    more();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    written: () => written,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
