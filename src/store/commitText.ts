/**
 * A commit's pull entry, joined from its stored JSON columns by the database itself
 * (docs/storage.md, "Wire bytes"), for both stores: plain SQL both dialects run the same way
 * (`||`, CASE; an integer joined to text is its decimal digits, as JSON.stringify writes it).
 * Every piece is already JSON text (the `data`, `signatures` and `attestations` columns hold
 * JSON.stringify output; hashes are lower-case hex, so quoting is all the escaping they need),
 * so the join gives exactly the bytes JSON.stringify(toPulledCommit(commit)) would: a pull
 * never parses a row, each commit's bytes are stored once, and each row reaches JavaScript as
 * one string.
 */

/** `"<hex>"` or `null`: a nullable hash column as JSON text. */
export const jsonHash = (column: string) => `CASE WHEN ${column} IS NULL THEN 'null' ELSE '"' || ${column} || '"' END`;

/**
 * The pull entry (docs/api.md, `GET /contracts/:id/pull`) of a `commits` row as one text: the
 * push format `{"hash","parent","data","head":{"parent","signatures"[,"attestations"]}}`, then
 * `body` (the data again), `timestamp` and, once numbered, `leaf_index`.
 */
export const PULL_ENTRY_SQL = `'{"hash":"' || hash || '","parent":' || ${jsonHash("parent")}
  || ',"data":' || data || ',"head":{"parent":' || ${jsonHash("parent")} || ',"signatures":' || signatures
  || CASE WHEN attestations IS NULL THEN '' ELSE ',"attestations":' || attestations END
  || '},"body":' || data || ',"timestamp":' || timestamp
  || CASE WHEN leaf_index IS NULL THEN '' ELSE ',"leaf_index":' || leaf_index END || '}'`;
