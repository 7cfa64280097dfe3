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

/** The bytes of a pull entry besides its JSON columns, at most: keys, hashes and numbers at their longest (333), rounded up. */
export const PULL_ENTRY_OVERHEAD = 340;

/**
 * At least the UTF-8 bytes of PULL_ENTRY_SQL's text, from the stored lengths alone: both
 * databases answer `octet_length` of a long text from its header (SQLite reads none of its
 * overflow pages, PostgreSQL none of its TOAST chunks), so a pull measures an entry without
 * reading it. The data twice, the signatures, the attestations with their key, and
 * PULL_ENTRY_OVERHEAD (a 20-character timestamp and leaf index, the parent a hash twice).
 */
export const PULL_ENTRY_BYTES_SQL = `(2 * octet_length(data) + octet_length(signatures)
  + COALESCE(octet_length(attestations) + 16, 0) + ${PULL_ENTRY_OVERHEAD})`;
