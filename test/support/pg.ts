/**
 * Throwaway PostgreSQL databases for tests. Each test file calls `testDatabase()` once: it
 * creates `ch_test_<random>` on the local server (PROTOCOL.md §12 tests run against a real
 * PostgreSQL) and drops it, with its connections, when the file's tests are done. Tests
 * that need several empty stores use one schema each inside it (`freshSchema`).
 * Server: `HUB_TEST_DATABASE_URL` (default postgres://postgres@127.0.0.1:5432/test), a
 * maintenance database the user may CREATE DATABASE from.
 */
import { randomBytes } from "node:crypto";
import { after } from "node:test";
import pg from "pg";

const ADMIN_URL = process.env.HUB_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface TestDatabase {
  /** Connection string of the throwaway database. */
  url: string;
  name: string;
  /** A new schema name, unique in this database (a PostgresStore creates it on open). */
  freshSchema(): string;
  /** Runs a statement on the maintenance database (e.g. ALTER DATABASE of this one). */
  adminQuery(text: string, params?: unknown[]): Promise<pg.QueryResult>;
  /** Drops the database (also registered with `after`, so calling it is optional). */
  drop(): Promise<void>;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL, application_name: "contract-hub-test-admin" });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates an isolated database for the calling test file and drops it after its tests. */
export async function testDatabase(): Promise<TestDatabase> {
  const name = `ch_test_${randomBytes(6).toString("hex")}`;
  try {
    await admin((c) => c.query(`CREATE DATABASE ${name}`));
  } catch (err) {
    throw new Error(
      `PostgreSQL is required by this test (${ADMIN_URL}): start it with ` +
        "`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start` or run .ci/run",
      { cause: err },
    );
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  let schemas = 0;
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    // FORCE (PostgreSQL 13+) ends connections a failed test may have left open.
    await admin(async (c) => {
      // A test may have closed it to new connections; DROP needs none, but keep it tidy.
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    });
  };
  after(drop);
  return {
    url: url.toString(),
    name,
    freshSchema: () => `s${++schemas}_${randomBytes(3).toString("hex")}`,
    adminQuery: (text, params) => admin((c) => c.query(text, params)),
    drop,
  };
}
