import pg from "pg";
import { ContractError } from "../../contract/ContractError.js";

/** Where a PostgresStore lives: the server, and optionally a schema of its own in that database. */
export interface PgLocation {
  /** `postgres://user@host:port/db` (libpq `PG*` environment variables fill the gaps). */
  connectionString: string;
  /** Schema holding the tables (created if missing; default: the server's search_path, i.e. `public`). */
  schema?: string;
}

/** How long opening a connection may take before the call fails as `unreachable`. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * A plain identifier short enough that its NOTIFY channels (`contract_proposals_<schema>`, the
 * longer) fit PostgreSQL's 63-byte names: pg_notify refuses a longer channel, which would fail
 * every append, and LISTEN would quietly truncate it.
 */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,43}$/;

/**
 * BIGINT (oid 20) as a JS number, for this pool only: lengths, indexes, times and amounts
 * are far below 2^53, and the global pg.types would change every other pg user in the process.
 */
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** The schema name, checked (it is spliced into SQL and a channel name). */
export function checkedSchema(schema: string | undefined): string | undefined {
  if (schema !== undefined && !SCHEMA_NAME.test(schema))
    throw new ContractError("INVALID_REQUEST", `Invalid schema name ${JSON.stringify(schema)}`, { reason: "schema" });
  return schema;
}

/** Client settings shared by the pool and the LISTEN connection. */
export function clientConfig(location: PgLocation, applicationName: string): pg.ClientConfig {
  const schema = checkedSchema(location.schema);
  return {
    connectionString: location.connectionString,
    application_name: applicationName,
    // An unreachable server must fail a request (503 storage), not hang it.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    types,
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  };
}

/** The NOTIFY channel of a schema's commits (one per schema, so stores in other schemas are not woken). */
export function commitChannel(schema: string | undefined): string {
  return schema === undefined ? "contract_commits" : `contract_commits_${schema}`;
}

/** A schema's two NOTIFY channels: appended commits, changed proposals. */
export interface PgChannels {
  commits: string;
  proposals: string;
}

export const pgChannels = (schema: string | undefined): PgChannels => ({
  commits: commitChannel(schema),
  proposals: proposalChannel(schema),
});

/**
 * The NOTIFY channel of a schema's proposal changes (`<contract_id>:<hash>`): another instance
 * reads the proposal and tells its own subscribers (docs/proposals.md, "Events").
 */
export function proposalChannel(schema: string | undefined): string {
  return schema === undefined ? "contract_proposals" : `contract_proposals_${schema}`;
}

/** The backend process id of a connected client (pg keeps it as `processID`, untyped). */
export function backendPid(client: pg.ClientBase): number | null {
  return (client as unknown as { processID: number | null }).processID ?? null;
}

/**
 * A client checked out of `pool`, heard while out. pg's pool listens for a client's 'error'
 * only while it is idle; a checked-out client whose connection the server ends (a restart, a
 * failover, pg_terminate_backend) emits 'error' besides failing its queries, and an 'error'
 * nobody hears ends the process. Heard here, the query under way fails on its own (a storage
 * fault), and `release` discards the connection instead of pooling it.
 */
export async function checkOut(pool: pg.Pool): Promise<{ client: pg.PoolClient; release(err?: Error): void }> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (err: Error) => {
    lost = err;
  };
  client.on("error", onError);
  return {
    client,
    release: (err) => {
      client.off("error", onError);
      client.release(err ?? lost);
    },
  };
}
