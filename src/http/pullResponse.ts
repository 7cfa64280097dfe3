import { Readable } from "node:stream";

/** The pieces of a streamed pull (HubApi.pullStream). */
export interface PullStreamParts {
  contract_id: string;
  head: string;
  /** Pages of the commits' JSON texts, in order. */
  pages: AsyncIterable<string[]>;
  hasMore: () => boolean;
}

/**
 * The pull response body written incrementally, a page of commits at a time, so a pull of a
 * huge log never holds it in memory; `Readable.from` respects the socket's backpressure.
 * Each page is one chunk (one socket write, one chunked-encoding frame) of texts the store
 * joined from its stored JSON columns (docs/storage.md): nothing is parsed or serialised here,
 * which is what makes a pull cheap per commit (docs/benchmarks.md, "The hub"). `has_more` is
 * written last because it is only known once the commits are read.
 */
export function pullResponse(parts: PullStreamParts, withHasMore: boolean): Readable {
  async function* chunks(): AsyncGenerator<string> {
    let out = `{"contract_id":${JSON.stringify(parts.contract_id)},"head":${JSON.stringify(parts.head)},"commits":[`;
    let first = true;
    for await (const page of parts.pages) {
      if (page.length === 0) continue;
      out += first ? page.join(",") : `,${page.join(",")}`;
      first = false;
      yield out;
      out = "";
    }
    yield `${out}${withHasMore ? `],"has_more":${parts.hasMore() ? "true" : "false"}}` : "]}"}`;
  }
  return Readable.from(chunks(), { objectMode: false });
}
