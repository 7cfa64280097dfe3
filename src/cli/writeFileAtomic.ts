import { randomBytes } from "node:crypto";
import { renameSync, rmSync, writeFileSync } from "node:fs";

/**
 * Writes `text` to `file` through a temp file and a rename, so a reader never sees half a
 * file. The temp name is the writer's own (`<file>.<pid>.<random>.tmp`): two commands that
 * write the same file at once (two `verify --remote` keeping a checkpoint) would otherwise
 * truncate and rename each other's temp file, losing or garbling a write or failing with
 * ENOENT. The last rename wins, and each rename puts a whole file in place.
 */
export function writeFileAtomic(file: string, text: string, mode?: number): void {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    writeFileSync(tmp, text, { flag: "wx", ...(mode === undefined ? {} : { mode }) });
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
