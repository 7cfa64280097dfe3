import { Readable } from "node:stream";
import type { PulledCommit } from "../contract/Commit.js";

/** The pieces of a streamed pull (HubApi.pullStream). */
export interface PullStreamParts {
  contract_id: string;
  head: string;
  commits: AsyncIterable<PulledCommit>;
  hasMore: () => boolean;
}

/**
 * The pull response body written incrementally, one commit at a time, so a pull of a huge
 * log never holds it in memory; `Readable.from` respects the socket's backpressure.
 * `has_more` is written last because it is only known once the commits are read.
 */
export function pullResponse(parts: PullStreamParts, withHasMore: boolean): Readable {
  async function* chunks(): AsyncGenerator<string> {
    yield `{"contract_id":${JSON.stringify(parts.contract_id)},"head":${JSON.stringify(parts.head)},"commits":[`;
    let first = true;
    for await (const commit of parts.commits) {
      yield first ? JSON.stringify(commit) : `,${JSON.stringify(commit)}`;
      first = false;
    }
    yield withHasMore ? `],"has_more":${parts.hasMore() ? "true" : "false"}}` : "]}";
  }
  return Readable.from(chunks(), { objectMode: false });
}
