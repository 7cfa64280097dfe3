import { Readable } from "node:stream";
import type { PulledCommit } from "../contract/Commit.js";

/** The pieces of a streamed pull (HubApi.pullStream). */
export interface PullStreamParts {
  contract_id: string;
  head: string;
  commits: AsyncIterable<PulledCommit>;
  hasMore: () => boolean;
}

/** Commits are written in chunks of about this many characters (one socket write each). */
const CHUNK_CHARS = 16 * 1024;

/**
 * The pull response body written incrementally, a chunk of commits at a time, so a pull of a
 * huge log never holds it in memory; `Readable.from` respects the socket's backpressure.
 * Chunks of ~16 KiB (the stream's high-water mark) rather than one per commit: each chunk is
 * a socket write and a chunked-encoding frame, and batching them cuts the hub's CPU time per
 * pulled commit (docs/benchmarks.md, "The hub"). `has_more` is written last because it is only
 * known once the commits are read.
 */
export function pullResponse(parts: PullStreamParts, withHasMore: boolean): Readable {
  async function* chunks(): AsyncGenerator<string> {
    let out = `{"contract_id":${JSON.stringify(parts.contract_id)},"head":${JSON.stringify(parts.head)},"commits":[`;
    let first = true;
    for await (const commit of parts.commits) {
      out += first ? JSON.stringify(commit) : `,${JSON.stringify(commit)}`;
      first = false;
      if (out.length >= CHUNK_CHARS) {
        yield out;
        out = "";
      }
    }
    yield `${out}${withHasMore ? `],"has_more":${parts.hasMore() ? "true" : "false"}}` : "]}"}`;
  }
  return Readable.from(chunks(), { objectMode: false });
}
