/**
 * The hub's one schema (docs/storage.md), shared by the SQLite and PostgreSQL stores so both
 * enforce the same invariants with the same tables, keys and constraints. Plain SQL both
 * accept: TEXT, BIGINT, SMALLINT, composite keys, UNIQUE, CHECK, `ON CONFLICT`. Commit JSON
 * columns are TEXT in both: what was written must read back byte for byte (JSONB would
 * reorder keys and normalise numbers). A migration is applied once and recorded in
 * `schema_version`; every statement is also written `IF NOT EXISTS` (or `IF EXISTS`), so a
 * half-applied manual run can be repeated, except where a dialect cannot say it (SQLite's
 * ADD COLUMN; its table rebuild of version 7 can only be repeated as a whole). What differs
 * by dialect (the party index's backfill with JSON functions, ADD COLUMN, dropping a table
 * constraint) each store passes in.
 */
import { jsonHash } from "./commitText.js";

export interface Migration {
  version: number;
  statements: string[];
}

const VERSION_1: readonly string[] = [
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
  // RECV names a SEND by hash alone; hashes include the contract id, so they are unique hub-wide.
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
  // Each SEND can be received once (docs/assets.md), across every instance: the constraint,
  // not a read-then-write check; it is named so a violation is recognised without parsing messages.
  `CREATE TABLE IF NOT EXISTS receipts (
    send_commit_hash TEXT NOT NULL REFERENCES sends(commit_hash),
    recv_commit_hash TEXT NOT NULL,
    contract_id TEXT NOT NULL REFERENCES contracts(id),
    CONSTRAINT receipts_one_per_send UNIQUE (send_commit_hash)
  )`,
];

/**
 * The party index (docs/api.md: parties may read private contracts, so they are listed to
 * them): the identity now stored at each `.id` path, backfilled from the stored commits in log
 * order, so the last write to a path wins as it does in the state.
 */
const PARTY_PATHS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS party_paths (
    contract_id TEXT NOT NULL REFERENCES contracts(id),
    path TEXT NOT NULL,
    identity TEXT NOT NULL,
    PRIMARY KEY (contract_id, path)
  )`,
  "CREATE INDEX IF NOT EXISTS party_paths_by_identity ON party_paths (identity)",
];

/**
 * The Merkle tree over every stored commit (docs/transparency.md): each commit's position in
 * it (`leaf_index`, assigned in the append transaction), the tree's complete subtrees
 * (`tlog_nodes`, hex SHA-256; a node never changes once written) and its size, one row whose
 * lock serialises leaf numbering across every instance. Commits stored before this version
 * get their leaves when the store opens (the hashing is not SQL). `tlog_key` holds the log
 * key when a PostgreSQL hub is given no key file.
 */
const TLOG: readonly string[] = [
  "CREATE UNIQUE INDEX IF NOT EXISTS commits_by_leaf ON commits (leaf_index)",
  `CREATE TABLE IF NOT EXISTS tlog_nodes (
    level SMALLINT NOT NULL,
    idx BIGINT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (level, idx)
  )`,
  `CREATE TABLE IF NOT EXISTS tlog_size (
    id SMALLINT PRIMARY KEY CHECK (id = 1),
    size BIGINT NOT NULL
  )`,
  "INSERT INTO tlog_size (id, size) VALUES (1, 0) ON CONFLICT DO NOTHING",
  `CREATE TABLE IF NOT EXISTS tlog_key (
    id SMALLINT PRIMARY KEY CHECK (id = 1),
    seed TEXT NOT NULL
  )`,
];

/**
 * Proposals (docs/proposals.md): commits being co-signed. Only `open`, `committed` and
 * `withdrawn` are stored; `stale` and `expired` are derived from the head and the clock when read.
 */
const PROPOSALS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS proposals (
    contract_id TEXT NOT NULL REFERENCES contracts(id),
    hash TEXT NOT NULL,
    parent TEXT NOT NULL,
    data TEXT NOT NULL,
    signatures TEXT NOT NULL,
    attestations TEXT,
    status TEXT NOT NULL CHECK (status IN ('open', 'committed', 'withdrawn')),
    proposer TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    commit_index BIGINT,
    PRIMARY KEY (contract_id, hash)
  )`,
  "CREATE INDEX IF NOT EXISTS proposals_by_status ON proposals (contract_id, status, created_at)",
];

/**
 * Wire bytes and state snapshots (docs/storage.md). `commits.wire` held each commit's push
 * format as the hub serialises it (`{"hash","parent","data","head"}`, the leading part of
 * commitText.ts `PULL_ENTRY_SQL`), so a pull would stream it instead of parsing and
 * re-serialising every row. Commits stored before this version got theirs here, built from
 * the JSON columns by the same concatenation (they hold JSON.stringify texts, so the result
 * is byte for byte what the hub wrote). Version 10 empties the column again.
 *
 * `state_snapshots` keeps the newest snapshot of each contract's state (every N commits): a
 * cold contract loads from it plus the commits after it. `digest` (SHA-256 of `state`)
 * catches accidental damage on load; `contract-hub verify` recomputes each from the log.
 */
const WIRE_AND_SNAPSHOTS: readonly string[] = [
  `UPDATE commits SET wire = '{"hash":' || ${jsonHash("hash")} || ',"parent":' || ${jsonHash("parent")}
     || ',"data":' || data || ',"head":{"parent":' || ${jsonHash("parent")} || ',"signatures":' || signatures
     || CASE WHEN attestations IS NULL THEN '' ELSE ',"attestations":' || attestations END || '}}'
   WHERE wire IS NULL`,
  `CREATE TABLE IF NOT EXISTS state_snapshots (
    contract_id TEXT PRIMARY KEY REFERENCES contracts(id),
    length BIGINT NOT NULL,
    head TEXT NOT NULL,
    format SMALLINT NOT NULL,
    state TEXT NOT NULL,
    digest TEXT NOT NULL
  )`,
];

/**
 * The index behind a contract's incoming SENDs (`GET /contracts/:id/incoming`): without it,
 * listing what was sent to one contract scans every send of the hub.
 */
const SENDS_BY_RECIPIENT: readonly string[] = ["CREATE INDEX IF NOT EXISTS sends_by_recipient ON sends (to_contract)"];

/**
 * One unique index on the commit hash (version 7). Version 1 kept two: UNIQUE (contract_id,
 * hash) and `commits_by_hash` for RECV's lookup by hash alone. A hash covers the contract id,
 * so it is unique hub-wide and one UNIQUE index on it enforces what the pair did and serves
 * both lookups; every append then pays one random-position b-tree insert per commit for the
 * hash instead of two. The dialect's statements, run first, remove the pair's constraint
 * (SQLite rebuilds the table, dropping its indexes with it, hence `commits_by_leaf` again).
 */
const UNIQUE_HASH: readonly string[] = [
  "CREATE UNIQUE INDEX IF NOT EXISTS commits_by_leaf ON commits (leaf_index)",
  "CREATE UNIQUE INDEX IF NOT EXISTS commits_unique_hash ON commits (hash)",
  "DROP INDEX IF EXISTS commits_by_hash",
];

/**
 * The newest checkpoint served with its witnesses' cosignatures (version 8; docs/transparency.md):
 * one row every instance reads before serving and replaces only with a larger tree, so
 * instances sharing the database never serve a checkpoint older than one any of them served.
 */
const TLOG_COSIGNED: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS tlog_cosigned (
    id SMALLINT PRIMARY KEY CHECK (id = 1),
    size BIGINT NOT NULL,
    root TEXT NOT NULL,
    note TEXT NOT NULL
  )`,
];

/**
 * Leaves derived from the commits (version 9; ../treeNodes.ts): a leaf's hash is the hash of
 * the commit hash its row holds, so `tlog_nodes` keeps only the levels above, and the rows of
 * level 0 written before go. Half the node rows an append writes, and a leaf is read through
 * `commits_by_leaf`, which the tree already had.
 */
const LEAVES_FROM_COMMITS: readonly string[] = ["DELETE FROM tlog_nodes WHERE level = 0"];

/**
 * Each commit's bytes stored once (version 10; docs/storage.md, "Wire bytes"). Version 5 kept
 * a commit's push format in `commits.wire` beside the JSON columns it joins, so a pull would
 * not parse rows; but joining the columns costs a pull no more than reading `wire`, and the
 * copy made every row about twice its size. The hub now writes no `wire` and reads none, and
 * this empties the copies stored before. The column stays (NULL), so an instance still
 * running older code during a rolling upgrade can insert; the copies it writes are never read.
 */
const WIRE_ONCE: readonly string[] = ["UPDATE commits SET wire = NULL WHERE wire IS NOT NULL"];

/**
 * Each SEND's leaf (its commit's `leaf_index`), filled for the rows that lack it. Version 11
 * runs it once; the store's open runs it again after numbering commits stored before the
 * tree existed (version 3), whose SENDs the migration could not number yet.
 */
export const SENDS_LEAF_BACKFILL =
  "UPDATE sends SET leaf_index = (SELECT c.leaf_index FROM commits c WHERE c.hash = sends.commit_hash) WHERE leaf_index IS NULL";

/**
 * A contract's incoming SENDs read in order from an index (version 11; docs/storage.md). The
 * list is ordered by the SEND commit's leaf, which lived only in `commits`: each page joined
 * and sorted every SEND addressed to the contract, so a recipient flooded with 1-unit SENDs
 * made every page read them all. `sends.leaf_index` (written with the SEND, backfilled here)
 * and the index on (to_contract, leaf_index) give a page its rows in order; the index's
 * prefix serves what `sends_by_recipient` did, so that one goes. The index comes before the
 * backfill: PostgreSQL marks an index built over rows just updated without it as unusable by
 * any transaction older than the index, so a busy database would sort every page until its
 * oldest transaction ended.
 */
const SENDS_IN_LEAF_ORDER: readonly string[] = [
  "CREATE INDEX IF NOT EXISTS sends_by_recipient_leaf ON sends (to_contract, leaf_index)",
  SENDS_LEAF_BACKFILL,
  "DROP INDEX IF EXISTS sends_by_recipient",
];

/**
 * The public key of the log's signing key (version 12; docs/transparency.md, "The log key and
 * the origin"): one row, written by the first hub that signs a checkpoint on this store and
 * never changed by the hub. Instances sharing a database may each be given the key as a
 * file (`--log-key`), which the database does not hold; this row is how one instance knows
 * the key the others sign with, and a hub whose key differs refuses to sign.
 */
const TLOG_PUBLIC_KEY: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS tlog_public_key (
    id SMALLINT PRIMARY KEY CHECK (id = 1),
    public_key TEXT NOT NULL
  )`,
];

/**
 * Which SENDs are received, beside them (version 13; docs/storage.md "Pending SENDs"):
 * `sends.received` (0 or 1, added by the dialect's ADD COLUMN with default 0) and the partial
 * index of the SENDs not received, by recipient and leaf. A pending page and its count read
 * only that index's rows; before, they looked up the receipt of every SEND ever addressed to
 * the contract, which anyone can make grow by sending 1-unit SENDs that get received. The
 * index comes before the backfill, as in version 11 (PostgreSQL's `indcheckxmin`); the
 * dialect's trigger that marks a SEND when its receipt is inserted comes before it too, so
 * nothing inserted while the migration runs is missed.
 */
const SENDS_PENDING: readonly string[] = [
  "CREATE INDEX IF NOT EXISTS sends_pending_by_recipient_leaf ON sends (to_contract, leaf_index) WHERE received = 0",
];

/** Marks the SENDs whose receipt is stored (version 13's backfill; `verify` checks the same). */
export const SENDS_RECEIVED_BACKFILL =
  "UPDATE sends SET received = 1 WHERE received = 0 AND commit_hash IN (SELECT send_commit_hash FROM receipts)";

/**
 * The migrations, with the dialect's statements that backfill the party index, add the
 * commits' leaf_index and wire columns and the sends' leaf_index (SQLite has no `ADD COLUMN
 * IF NOT EXISTS`), drop the commits' UNIQUE (contract_id, hash) (SQLite cannot drop a
 * table constraint), add `sends.received` and the trigger that sets it (version 13), and add
 * `tlog_public_key.origin` (version 14).
 */
export function schemaMigrations(
  partyPathsBackfill: string,
  addLeafIndex: string,
  addWire: string,
  dropHashPair: readonly string[],
  addSendLeaf: string,
  addReceived: string,
  markReceived: readonly string[],
  addLogOrigin: string,
): readonly Migration[] {
  return [
    { version: 1, statements: [...VERSION_1] },
    { version: 2, statements: [...PARTY_PATHS, partyPathsBackfill] },
    { version: 3, statements: [addLeafIndex, ...TLOG] },
    { version: 4, statements: [...PROPOSALS] },
    { version: 5, statements: [addWire, ...WIRE_AND_SNAPSHOTS] },
    { version: 6, statements: [...SENDS_BY_RECIPIENT] },
    { version: 7, statements: [...dropHashPair, ...UNIQUE_HASH] },
    { version: 8, statements: [...TLOG_COSIGNED] },
    { version: 9, statements: [...LEAVES_FROM_COMMITS] },
    { version: 10, statements: [...WIRE_ONCE] },
    { version: 11, statements: [addSendLeaf, ...SENDS_IN_LEAF_ORDER] },
    { version: 12, statements: [...TLOG_PUBLIC_KEY] },
    { version: 13, statements: [addReceived, ...SENDS_PENDING, ...markReceived, SENDS_RECEIVED_BACKFILL] },
    // The log's origin, recorded with its key (docs/transparency.md, "The log key and the
    // origin"): clients and witnesses pin both, so two origins over one tree are two logs to
    // them. Null in a row written before (or by older code during an upgrade) until the next
    // hub that loads the recorded key records its own.
    { version: 14, statements: [addLogOrigin] },
  ];
}
