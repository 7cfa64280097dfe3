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
 * Version 13 (../schema.ts; ../sqlite/migrations.ts says why a trigger): the receipt's INSERT
 * marks its SEND received in the same transaction, also when an instance of older code, still
 * running during a rolling upgrade, inserts it. The function resolves `sends` through the
 * search_path it was created under (the store's schema), not the caller's.
 * `CREATE TRIGGER` takes a lock that waits for every transaction that inserted a receipt
 * before it, so the backfill after it sees their receipts and no later one is missed.
 */
const MARK_RECEIVED: readonly string[] = [
  `CREATE OR REPLACE FUNCTION mark_send_received() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
   BEGIN
     UPDATE sends SET received = 1 WHERE commit_hash = NEW.send_commit_hash;
     RETURN NULL;
   END $$`,
  "DROP TRIGGER IF EXISTS receipts_mark_received ON receipts",
  `CREATE TRIGGER receipts_mark_received AFTER INSERT ON receipts
     FOR EACH ROW EXECUTE FUNCTION mark_send_received()`,
];

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
  "ALTER TABLE sends ADD COLUMN IF NOT EXISTS received SMALLINT NOT NULL DEFAULT 0",
  MARK_RECEIVED,
  "ALTER TABLE tlog_public_key ADD COLUMN IF NOT EXISTS origin TEXT",
);

/** The newest schema version this code knows. */
export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version;
