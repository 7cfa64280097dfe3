/**
 * The log key a hub on a store signs checkpoints with (docs/transparency.md, "The log key and
 * the origin"), checked against the key the store records as its log's. The first key a hub
 * signs with on a store is recorded there; every later hub on it (another instance on a
 * shared database, a restart, a hub given `--log-key`) must sign with the same key: clients
 * pin the key, and two keys signing one tree look to them like a hub that forked or lied.
 * The origin is recorded with the key and held the same way: clients and witnesses pin it
 * too, and two origins over one tree are two logs to them.
 */
import { ContractError } from "../contract/ContractError.js";
import { IDENTITY_PREFIX } from "../contract/hex.js";
import { LogKey } from "../tlog/LogKey.js";
import type { Store } from "./Store.js";

export interface LogKeyChoice {
  /** A seed given to the hub (a `--log-key` file's); default: the one kept with the store. */
  seed?: Buffer;
  /** Where `seed` came from, for the refusal (e.g. `--log-key FILE`). */
  source?: string;
  /** The log's origin (default: derived from the public key). */
  origin?: string;
}

const named = (publicKey: Buffer) => IDENTITY_PREFIX + publicKey.toString("hex");

/**
 * The log key, once the store records its public key and origin as the log's; INTERNAL
 * `log_key_mismatch` (details `recorded`, `key`) when the store records another key, and
 * `log_origin_mismatch` (details `recorded`, `origin`) when it records the key with another
 * origin. A key recorded before origins were (schema version 14) takes this one's.
 */
export async function loadLogKey(store: Store, choice: LogKeyChoice = {}): Promise<LogKey> {
  const key = new LogKey(choice.seed ?? (await store.logKeySeed()), choice.origin);
  const { publicKey: recorded, origin: recordedOrigin } = await store.recordLogKey(key.publicKey, key.origin);
  if (!recorded.equals(key.publicKey)) {
    const source = choice.seed === undefined ? "the key kept with the store" : (choice.source ?? "the key given");
    throw new ContractError(
      "INTERNAL",
      `The log key of ${source} (${named(key.publicKey)}) is not the key this store records as its log's ` +
        `(${named(recorded)}), which its checkpoints were signed with: clients that pinned that key would ` +
        "see two keys sign one tree. Give every hub on this store that key (docs/transparency.md)",
      { reason: "log_key_mismatch", recorded: named(recorded), key: named(key.publicKey) },
    );
  }
  // Null only for a key recorded without origin whose origin another key's load left unset:
  // not this key's, which recorded its own above.
  if (recordedOrigin !== null && recordedOrigin !== key.origin) {
    const given = choice.origin === undefined ? "the default origin" : "the origin given (--log-origin)";
    throw new ContractError(
      "INTERNAL",
      `The log origin of ${given} (${JSON.stringify(key.origin)}) is not the origin this store records for ` +
        `its log (${JSON.stringify(recordedOrigin)}), which its checkpoints name: clients and witnesses that ` +
        "pinned that origin would see two logs over one tree. Give every hub on this store that origin " +
        "(--log-origin; docs/transparency.md)",
      { reason: "log_origin_mismatch", recorded: recordedOrigin, origin: key.origin },
    );
  }
  return key;
}

/**
 * The refusal of a store asked for its seed when it records a log key it holds no seed for:
 * the key was given to the hub as a file, or the store's own seed is gone (a data directory
 * restored without its `log-key.json`), and a seed made now would be another key.
 */
export function noSeedForLogKey(recordedHex: string): ContractError {
  const recorded = IDENTITY_PREFIX + recordedHex;
  return new ContractError(
    "INTERNAL",
    `This store records the log key ${recorded} but does not hold it: it was given to the hub as a file, ` +
      "or the store's own copy (log-key.json of a SQLite data directory, tlog_key on PostgreSQL) is gone. " +
      "Start every hub on this store with --log-key and that key's file, or put the store's copy back " +
      "(docs/transparency.md)",
    { reason: "log_key_mismatch", recorded },
  );
}
