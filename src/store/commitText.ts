/**
 * A commit's wire bytes and its pull entry, joined from the stored JSON columns
 * (docs/storage.md), shared by both stores. Every piece is already JSON text (the `data`,
 * `signatures` and `attestations` columns hold JSON.stringify output), so joining them gives
 * exactly the bytes JSON.stringify of the parsed commit would: a pull never parses a row, and
 * each commit's bytes are stored once.
 */

/** A hash as JSON: hashes are lower-case hex, so quoting is all the escaping they need. */
const hashJson = (hash: string | null): string => (hash === null ? "null" : `"${hash}"`);

/**
 * The push format `{"hash","parent","data","head":{"parent","signatures"[,"attestations"]}}`
 * as JSON text, from the JSON texts of its parts (`attestations` null when there are none).
 * Schema version 5's migration built the same text in SQL for the `wire` column (schema.ts),
 * which version 10 empties again.
 */
export function wireText(
  hash: string,
  parent: string | null,
  data: string,
  signatures: string,
  attestations: string | null,
): string {
  const p = hashJson(parent);
  const att = attestations === null ? "" : `,"attestations":${attestations}`;
  return `{"hash":${hashJson(hash)},"parent":${p},"data":${data},"head":{"parent":${p},"signatures":${signatures}${att}}}`;
}

/**
 * The pull entry (docs/api.md, `GET /contracts/:id/pull`): the wire text plus `body` (the
 * data again), `timestamp` and, once numbered, `leaf_index`, in the order and bytes of
 * JSON.stringify(toPulledCommit(commit)).
 */
export function pulledText(wire: string, data: string, timestamp: number, leafIndex: number | null): string {
  const leaf = leafIndex === null ? "" : `,"leaf_index":${leafIndex}`;
  return `${wire.slice(0, -1)},"body":${data},"timestamp":${timestamp}${leaf}}`;
}
