import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "./cliContext.js";

/**
 * A file the user named on the command line, relative to the command's folder. One that
 * cannot be read (missing, a folder, no permission) is a usage error in every command (exit 2,
 * `code: "USAGE"`, `details: {reason: "unreadable_file", file}`, docs/cli.md): the command
 * line names something that is not there, as a missing working copy is.
 */
export function readUserFile(cwd: string, file: string): Buffer {
  try {
    return readFileSync(resolve(cwd, file));
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`, { reason: "unreadable_file", file });
  }
}
