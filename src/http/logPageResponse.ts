import { Readable } from "node:stream";

/**
 * A page of the log as a response body written in pieces (HubApi.getLogText): the event
 * loop serves others between its entries, and a client that reads slowly holds back the rest
 * of the page rather than the whole text waiting in memory. The bytes are JSON.stringify(page)'s.
 */
export function logPageResponse(pieces: AsyncIterable<string>): Readable {
  return Readable.from(pieces, { objectMode: false });
}
