import { type CommitSink, relayCommits } from "./postgres/commitRelay.js";
import { PostgresStore } from "./postgres/PostgresStore.js";
import type { Store } from "./Store.js";
import { SqliteStore } from "./sqlite/SqliteStore.js";

export interface OpenStoreOptions {
  /** SQLite's directory (used when no database URL is given). */
  dataDir: string;
  /** `postgres://…` (`--database-url` / `HUB_DATABASE_URL`): PostgreSQL instead of SQLite. */
  databaseUrl?: string | null | undefined;
  /** PostgreSQL pool connections per instance (default 10). */
  poolSize?: number;
  /**
   * SQLite: give leaves to commits stored without one (default true; `verify` opens with
   * false, see SqliteStoreOptions). PostgreSQL always does, since a rolling upgrade
   * legitimately leaves commits an older instance wrote without a leaf.
   */
  repairLeaves?: boolean;
}

/** The hub's store: PostgreSQL when a URL is given (scale-out), else SQLite in `dataDir`. */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  if (options.databaseUrl) {
    return PostgresStore.open({
      connectionString: options.databaseUrl,
      ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
    });
  }
  return SqliteStore.open({
    dataDir: options.dataDir,
    ...(options.repairLeaves === undefined ? {} : { repairLeaves: options.repairLeaves }),
  });
}

/** What the relay feeds (Hub.relay is one): see postgres/commitRelay.ts. */
export type EventSink = CommitSink;

/**
 * Delivers commits written and proposals changed by other instances sharing the store to `bus` (PostgreSQL:
 * LISTEN/NOTIFY; an embedded SQLite store has no other writers, so nothing to do).
 * Returns the function that stops it.
 */
export async function relayStoreEvents(
  store: Store,
  bus: EventSink,
  onError?: (err: unknown) => void,
): Promise<() => Promise<void>> {
  if (!(store instanceof PostgresStore)) return async () => {};
  const relay = await relayCommits(store, bus, onError);
  return () => relay.close();
}
