import { type Migration, schemaMigrations } from "../schema.js";

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
);

/** The newest schema version this code knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
