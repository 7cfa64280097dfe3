import { storageErrorKind, storageUnavailable } from "../../store/storageFault.js";

/**
 * Rethrows a storage fault (the database cannot be reached, its connection ended, a full
 * disk, an I/O error) as the hub's storage error (UNAVAILABLE, `details.reason: "storage"`):
 * the store could not be read, which says nothing about what it holds, so it is never
 * reported as a damaged contract or tree. Anything else (a row that does not decode) returns.
 */
export function throwStorageFault(err: unknown): void {
  const kind = storageErrorKind(err);
  if (kind !== null && kind !== "corrupted") throw storageUnavailable(kind, err);
}
