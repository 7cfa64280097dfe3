import { type Migration, schemaMigrations } from "../schema.js";

/**
 * Version 7 (../schema.ts): drops the commits' UNIQUE (contract_id, hash) constraint under
 * whatever name it was created with (`commits_contract_id_hash_key` by default), found in
 * pg_constraint as the unique constraint over exactly those two columns. `'commits'::regclass`
 * resolves through the search_path, so a store in its own schema drops its own. Does nothing
 * once the constraint is gone.
 */
const DROP_HASH_PAIR = `DO $$
DECLARE c record;
BEGIN
  FOR c IN
    SELECT con.conrelid::regclass AS tbl, con.conname
      FROM pg_constraint con
     WHERE con.conrelid = 'commits'::regclass AND con.contype = 'u'
       AND ARRAY(SELECT a.attname::text FROM pg_attribute a
                  WHERE a.attrelid = con.conrelid AND a.attnum = ANY (con.conkey)
                  ORDER BY a.attname) = ARRAY['contract_id', 'hash']
  LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', c.tbl, c.conname);
  END LOOP;
END $$`;

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
  [DROP_HASH_PAIR],
  "ALTER TABLE sends ADD COLUMN IF NOT EXISTS leaf_index BIGINT",
);

/** The newest schema version this code knows. */
export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version;
