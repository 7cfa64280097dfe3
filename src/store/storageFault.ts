/**
 * Names what went wrong below the store (docs/reliability.md, storage faults): a full disk,
 * an I/O error, a database that cannot be reached, or damaged pages. Anything else is not a
 * storage fault and keeps its own meaning (a CONFLICT stays a CONFLICT, a bug stays INTERNAL).
 */
import { ContractError } from "../contract/ContractError.js";

/** A fault that passes when the disk, the device or the network recovers. */
export type StorageFaultReason = "disk_full" | "io_error" | "unreachable";

/** What an error from a store call means. */
export type StorageErrorKind = StorageFaultReason | "corrupted" | null;

/** Seconds a client is told to wait before retrying during a storage fault. */
export const STORAGE_RETRY_AFTER_SECONDS = 1;

// SQLSTATE classes and codes of PostgreSQL (errcodes appendix of its manual).
const PG_DISK_FULL = new Set(["53100"]);
const PG_IO_ERROR = new Set(["58030"]);
const PG_CORRUPTED = new Set(["XX001", "XX002"]);
// Shutting down, crashed, starting up, too many connections, out of memory: come back later.
const PG_UNAVAILABLE = new Set(["57P01", "57P02", "57P03", "53000", "53200", "53300"]);
const NET_ERRORS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
]);
// A database closed to connections (SQLSTATE 55000, a broad class: told apart by its message).
const PG_NOT_ACCEPTING = /is not currently accepting connections/;
// node-postgres reports a dropped or never-established connection without a code.
const PG_CONNECTION_MESSAGE =
  /Connection terminated|connection error|not queryable|timeout exceeded when trying to connect|Client was closed/i;

/** Classifies an error thrown by a store call (better-sqlite3, node-postgres, the file system). */
export function storageErrorKind(err: unknown): StorageErrorKind {
  if (err instanceof ContractError || typeof err !== "object" || err === null) return null;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") {
    if (code === "SQLITE_FULL" || code === "ENOSPC" || PG_DISK_FULL.has(code)) return "disk_full";
    if (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB" || PG_CORRUPTED.has(code)) return "corrupted";
    if (code.startsWith("SQLITE_IOERR") || code === "SQLITE_CANTOPEN" || code === "EIO" || PG_IO_ERROR.has(code))
      return "io_error";
    if (NET_ERRORS.has(code) || code.startsWith("08") || PG_UNAVAILABLE.has(code)) return "unreachable";
    // Closed for maintenance (ALLOW_CONNECTIONS false): come back later.
    if (code === "55000" && PG_NOT_ACCEPTING.test(String((err as { message?: unknown }).message))) return "unreachable";
    return null;
  }
  const message = (err as { message?: unknown }).message;
  return typeof message === "string" && PG_CONNECTION_MESSAGE.test(message) ? "unreachable" : null;
}

/** The 503 a caller gets while a storage fault lasts. */
export function storageUnavailable(reason: StorageFaultReason, cause: unknown): ContractError {
  const what = {
    disk_full: "the disk is full",
    io_error: "the storage device reports I/O errors",
    unreachable: "the database cannot be reached",
  }[reason];
  return new ContractError(
    "UNAVAILABLE",
    `Storage unavailable: ${what}; nothing was written, retry later`,
    { reason: "storage", storage: reason, retry_after: STORAGE_RETRY_AFTER_SECONDS },
    { cause },
  );
}

/** CORRUPTED for damaged pages, naming the contract whose data could not be read when known. */
export function storageCorrupted(contractId: string | null, cause: unknown): ContractError {
  const where = contractId === null ? "the hub's database" : `contract ${JSON.stringify(contractId)}`;
  return new ContractError(
    "CORRUPTED",
    `Stored data of ${where} is damaged: the database reports corrupted pages`,
    contractId === null ? { reason: "corrupted" } : { reason: "corrupted", contract_id: contractId },
    { cause },
  );
}
