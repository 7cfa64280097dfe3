/**
 * The PostgreSQL schema: the SQLite schema of ../sqlite/migrations.ts ported statement by
 * statement (the same tables, keys and constraints, so both stores enforce the same
 * invariants). Counters and times are BIGINT. The commit's JSON columns stay TEXT, not
 * JSONB: JSONB would reorder keys and normalise numbers, and what was written must read
 * back byte for byte. Versions are recorded in `schema_version`; see migrate.ts.
 */
export interface PgMigration {
  version: number;
  statements: string[];
}

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    statements: [
      `CREATE TABLE IF NOT EXISTS contracts (
        id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        head TEXT NOT NULL,
        length BIGINT NOT NULL,
        private SMALLINT NOT NULL DEFAULT 0
      )`,
      `CREATE TABLE IF NOT EXISTS commits (
        contract_id TEXT NOT NULL REFERENCES contracts(id),
        idx BIGINT NOT NULL,
        hash TEXT NOT NULL,
        parent TEXT,
        data TEXT NOT NULL,
        signatures TEXT NOT NULL,
        attestations TEXT,
        timestamp BIGINT NOT NULL,
        signers TEXT NOT NULL,
        PRIMARY KEY (contract_id, idx),
        UNIQUE (contract_id, hash)
      )`,
      "CREATE INDEX IF NOT EXISTS commits_by_hash ON commits (hash)",
      `CREATE TABLE IF NOT EXISTS identities (
        identity TEXT PRIMARY KEY,
        created_at BIGINT NOT NULL
      )`,
      `CREATE TABLE IF NOT EXISTS access_keys (
        access_key TEXT PRIMARY KEY,
        identity TEXT NOT NULL REFERENCES identities(identity),
        created_at BIGINT NOT NULL,
        revoked_at BIGINT
      )`,
      "CREATE INDEX IF NOT EXISTS access_keys_by_identity ON access_keys (identity)",
      `CREATE TABLE IF NOT EXISTS nonces (
        access_key TEXT NOT NULL,
        nonce TEXT NOT NULL,
        expires_at BIGINT NOT NULL,
        PRIMARY KEY (access_key, nonce)
      )`,
      "CREATE INDEX IF NOT EXISTS nonces_by_expiry ON nonces (expires_at)",
      `CREATE TABLE IF NOT EXISTS grants (
        contract_id TEXT NOT NULL REFERENCES contracts(id),
        identity TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('reader', 'writer')),
        granted_at BIGINT NOT NULL,
        PRIMARY KEY (contract_id, identity)
      )`,
      "CREATE INDEX IF NOT EXISTS grants_by_identity ON grants (identity)",
      `CREATE TABLE IF NOT EXISTS assets (
        issuer TEXT NOT NULL REFERENCES contracts(id),
        asset_id TEXT NOT NULL,
        quantity BIGINT NOT NULL CHECK (quantity > 0),
        divisibility BIGINT NOT NULL CHECK (divisibility > 0),
        commit_hash TEXT NOT NULL,
        PRIMARY KEY (issuer, asset_id)
      )`,
      `CREATE TABLE IF NOT EXISTS balances (
        contract_id TEXT NOT NULL REFERENCES contracts(id),
        issuer TEXT NOT NULL,
        asset_id TEXT NOT NULL,
        amount BIGINT NOT NULL CHECK (amount >= 0),
        PRIMARY KEY (contract_id, issuer, asset_id)
      )`,
      `CREATE TABLE IF NOT EXISTS sends (
        commit_hash TEXT PRIMARY KEY,
        from_contract TEXT NOT NULL REFERENCES contracts(id),
        to_contract TEXT NOT NULL,
        issuer TEXT NOT NULL,
        asset_id TEXT NOT NULL,
        amount BIGINT NOT NULL CHECK (amount > 0)
      )`,
      // Each SEND can be received once (PROTOCOL.md §6), across every instance: the
      // constraint is named so a violation is recognised without parsing messages.
      `CREATE TABLE IF NOT EXISTS receipts (
        send_commit_hash TEXT NOT NULL REFERENCES sends(commit_hash),
        recv_commit_hash TEXT NOT NULL,
        contract_id TEXT NOT NULL REFERENCES contracts(id),
        CONSTRAINT receipts_one_per_send UNIQUE (send_commit_hash)
      )`,
    ],
  },
  {
    // The party index (see ../sqlite/migrations.ts version 2), backfilled in log order.
    version: 2,
    statements: [
      `CREATE TABLE IF NOT EXISTS party_paths (
        contract_id TEXT NOT NULL REFERENCES contracts(id),
        path TEXT NOT NULL,
        identity TEXT NOT NULL,
        PRIMARY KEY (contract_id, path)
      )`,
      "CREATE INDEX IF NOT EXISTS party_paths_by_identity ON party_paths (identity)",
      `INSERT INTO party_paths (contract_id, path, identity)
        SELECT DISTINCT ON (m.contract_id, op.value->>'path') m.contract_id, op.value->>'path', op.value->>'value'
          FROM commits m, jsonb_array_elements(m.data::jsonb) WITH ORDINALITY AS op(value, ord)
         WHERE op.value->>'method' IN ('post', 'repost')
           AND op.value->>'path' LIKE '%.id'
           AND jsonb_typeof(op.value->'value') = 'string'
         ORDER BY m.contract_id, op.value->>'path', m.idx DESC, op.ord DESC
        ON CONFLICT (contract_id, path) DO UPDATE SET identity = excluded.identity`,
    ],
  },
];

/** The newest schema version this code knows. */
export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version;
