import { type Migration, schemaMigrations } from "../schema.js";

/** The commits' columns in table order: version 1's, then leaf_index (version 3) and wire (version 5). */
const COMMIT_TABLE_COLUMNS =
  "contract_id, idx, hash, parent, data, signatures, attestations, timestamp, signers, leaf_index, wire";

/**
 * Version 7 (../schema.ts): SQLite cannot drop a table constraint, so `commits` is rebuilt
 * without UNIQUE (contract_id, hash), with the same columns in the same order and types as
 * versions 1, 3 and 5 left them. Rows are copied as stored (no value is converted), so every
 * text reads back byte for byte. It runs inside migrate()'s transaction with foreign_keys=ON:
 * no table, view or trigger refers to `commits`, so neither the DROP (no implicit delete is
 * checked against children) nor the RENAME touches anything else. DROP TABLE also drops the
 * old indexes; the shared statements create the ones version 7 keeps. The first statement
 * clears what an interrupted manual run may have left, so the list can be run again whole.
 */
const REBUILD_COMMITS: readonly string[] = [
  "DROP TABLE IF EXISTS commits_v7",
  `CREATE TABLE commits_v7 (
    contract_id TEXT NOT NULL REFERENCES contracts(id),
    idx BIGINT NOT NULL,
    hash TEXT NOT NULL,
    parent TEXT,
    data TEXT NOT NULL,
    signatures TEXT NOT NULL,
    attestations TEXT,
    timestamp BIGINT NOT NULL,
    signers TEXT NOT NULL,
    leaf_index BIGINT,
    wire TEXT,
    PRIMARY KEY (contract_id, idx)
  )`,
  `INSERT INTO commits_v7 (${COMMIT_TABLE_COLUMNS}) SELECT ${COMMIT_TABLE_COLUMNS} FROM commits`,
  "DROP TABLE commits",
  "ALTER TABLE commits_v7 RENAME TO commits",
];

/**
 * Version 13 (../schema.ts): a SEND is marked received by the statement that stores its
 * receipt, whichever code runs it, in the same transaction. A trigger rather than a second
 * statement beside the hub's INSERT, so an instance of older code still writing to the same
 * file during an upgrade (it knows nothing of the marker) cannot leave a received SEND listed
 * as pending.
 */
const MARK_RECEIVED = `CREATE TRIGGER IF NOT EXISTS receipts_mark_received AFTER INSERT ON receipts
  BEGIN UPDATE sends SET received = 1 WHERE commit_hash = NEW.send_commit_hash; END`;

/** SQLite's JSON functions backfill the party index (../schema.ts), in log order. */
export const MIGRATIONS: readonly Migration[] = schemaMigrations(
  `INSERT INTO party_paths (contract_id, path, identity)
    SELECT m.contract_id, json_extract(op.value, '$.path'), json_extract(op.value, '$.value')
      FROM commits m, json_each(m.data) op
     WHERE json_extract(op.value, '$.method') IN ('post', 'repost')
       AND json_extract(op.value, '$.path') LIKE '%.id'
       AND json_type(op.value, '$.value') = 'text'
     ORDER BY m.contract_id, m.idx, op.key
    ON CONFLICT (contract_id, path) DO UPDATE SET identity = excluded.identity`,
  "ALTER TABLE commits ADD COLUMN leaf_index BIGINT",
  "ALTER TABLE commits ADD COLUMN wire TEXT",
  REBUILD_COMMITS,
  "ALTER TABLE sends ADD COLUMN leaf_index BIGINT",
  "ALTER TABLE sends ADD COLUMN received SMALLINT NOT NULL DEFAULT 0",
  [MARK_RECEIVED],
  "ALTER TABLE tlog_public_key ADD COLUMN origin TEXT",
);

/** The newest schema version this code knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
