import { type Migration, schemaMigrations } from "../schema.js";

/**
 * PostgreSQL's JSON functions backfill the party index (../schema.ts): one row per path, the
 * last write in log order winning (`ON CONFLICT` may not touch a row twice in one statement).
 */
export const PG_MIGRATIONS: readonly Migration[] = schemaMigrations(
  `INSERT INTO party_paths (contract_id, path, identity)
    SELECT DISTINCT ON (m.contract_id, op.value->>'path') m.contract_id, op.value->>'path', op.value->>'value'
      FROM commits m, jsonb_array_elements(m.data::jsonb) WITH ORDINALITY AS op(value, ord)
     WHERE op.value->>'method' IN ('post', 'repost')
       AND op.value->>'path' LIKE '%.id'
       AND jsonb_typeof(op.value->'value') = 'string'
     ORDER BY m.contract_id, op.value->>'path', m.idx DESC, op.ord DESC
    ON CONFLICT (contract_id, path) DO UPDATE SET identity = excluded.identity`,
  "ALTER TABLE commits ADD COLUMN IF NOT EXISTS leaf_index BIGINT",
  "ALTER TABLE commits ADD COLUMN IF NOT EXISTS wire TEXT",
);

/** The newest schema version this code knows. */
export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version;
