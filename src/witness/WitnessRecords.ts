/**
 * What a witness remembers, durably, in its directory: for each log (by origin) the newest
 * checkpoint it cosigned, one file per log (`logs/<SHA-256 of the origin, hex>.json`). A
 * record is written to a temporary file, fsynced, renamed over the old one and the directory
 * fsynced, so after a crash the witness holds either the old record or the new one — and
 * never cosigns a smaller tree than it has cosigned before, restarted or not. Refusals are
 * appended to `refusals.jsonl` with the checkpoint and proof that were refused (evidence).
 */
import { createHash } from "node:crypto";
import {
  appendFileSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

/** The newest checkpoint a witness cosigned for one log. */
export interface CosignedRecord {
  origin: string;
  size: number;
  /** Root hash, base64 (as in the checkpoint). */
  root: string;
  /** The checkpoint as the log signed it, plus this witness's cosignature line. */
  checkpoint: string;
}

/** The hex SHA-256 of an origin: how the monitoring route and the record files name a log. */
export const originHash = (origin: string): string => createHash("sha256").update(origin).digest("hex");

function fsyncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export class WitnessRecords {
  readonly #dir: string;
  readonly #records = new Map<string, CosignedRecord>();

  /** Opens (creating) `dir/logs` and reads every record in it. */
  constructor(dir: string) {
    this.#dir = join(dir, "logs");
    mkdirSync(this.#dir, { recursive: true });
    for (const file of readdirSync(this.#dir)) {
      if (!/^[0-9a-f]{64}\.json$/.test(file)) continue;
      const path = join(this.#dir, file);
      const r = JSON.parse(readFileSync(path, "utf8")) as CosignedRecord;
      if (typeof r.origin !== "string" || !Number.isSafeInteger(r.size) || `${originHash(r.origin)}.json` !== file) {
        throw new Error(`Malformed witness record ${path}`);
      }
      this.#records.set(r.origin, r);
    }
  }

  get(origin: string): CosignedRecord | undefined {
    return this.#records.get(origin);
  }

  /** Replaces the record of `r.origin`, durably, before returning. */
  put(r: CosignedRecord): void {
    const path = join(this.#dir, `${originHash(r.origin)}.json`);
    const tmp = `${path}.tmp`;
    const fd = openSync(tmp, "w", 0o600);
    try {
      writeSync(fd, `${JSON.stringify(r)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    fsyncDir(this.#dir);
    this.#records.set(r.origin, r);
  }

  /** The record of the log whose origin hashes to `hash`. */
  byOriginHash(hash: string): CosignedRecord | undefined {
    return [...this.#records.values()].find((r) => originHash(r.origin) === hash);
  }

  /** Appends one refusal to `refusals.jsonl` (best effort: evidence, not state). */
  noteRefusal(entry: object): void {
    try {
      appendFileSync(join(this.#dir, "..", "refusals.jsonl"), `${JSON.stringify(entry)}\n`);
    } catch {
      // The refusal is still answered and printed.
    }
  }
}
