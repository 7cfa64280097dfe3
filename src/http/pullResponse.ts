import { Readable } from "node:stream";
import type { PullStream } from "../hub/HubApi.js";

/**
 * The pull response body written incrementally, a page of commits at a time, so a pull of a
 * huge log never holds it in memory; `Readable.from` respects the socket's backpressure.
 * Each page is one chunk (one socket write, one chunked-encoding frame) of texts the store
 * joined from its stored JSON columns (docs/storage.md): nothing is parsed or serialised here,
 * which is what makes a pull cheap per commit (docs/benchmarks.md, "The hub"). `has_more` is
 * written last because it is only known once the commits are read.
 *
 * The caller's work budget is charged for the pull's time (HubApi.pullStream) except while a
 * page waits to be asked for: `Readable.from` asks for the next piece only once the socket has
 * drained, and a client on a slow link keeps it waiting for as long as it likes, while the hub
 * does nothing for it. That wait was charged, so an honest client reading slowly spent its
 * allowance and had its next long pull refused. A page is encoded to bytes before the wait,
 * so that its encoding (which `push` would otherwise do) is charged with its reading.
 */
export function pullResponse(parts: PullStream, withHasMore: boolean): Readable {
  async function* chunks(): AsyncGenerator<string | Buffer> {
    let out = `{"contract_id":${JSON.stringify(parts.contract_id)},"head":${JSON.stringify(parts.head)},"commits":[`;
    let first = true;
    for await (const page of parts.pages) {
      if (page.length === 0) continue;
      out += first ? page.join(",") : `,${page.join(",")}`;
      first = false;
      const bytes = Buffer.from(out, "utf8");
      out = "";
      parts.idle();
      try {
        yield bytes;
      } finally {
        // Asked for more, or ended early (its reader gone): the wait is over either way.
        parts.busy();
      }
    }
    yield `${out}${withHasMore ? `],"has_more":${parts.hasMore() ? "true" : "false"}}` : "]}"}`;
  }
  return Readable.from(chunks(), { objectMode: false });
}
