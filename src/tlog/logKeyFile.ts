/**
 * The log key's file: the JSON form of the command line's key files
 * (`{"name", "seed", "public_key"}`, so a key made by `contract-hub keygen` serves as one),
 * readable by its owner only. An embedded hub keeps it in its data directory; PostgreSQL
 * instances are given one with `--log-key FILE`.
 */
import { closeSync, existsSync, fsyncSync, linkSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { ContractError } from "../contract/ContractError.js";
import { decodeHex, encodeHex } from "../contract/hex.js";
import { generateKeyPair, publicKeyFromSeed } from "../contract/keys.js";

/**
 * Reads the 32-byte seed of a log key file; a missing or malformed file is INTERNAL
 * (`log_key_unreadable`, `log_key_malformed`): the file is the operator's, so a served hub
 * that meets it while answering a request answers a server error, not the caller's 400.
 * `name` is how the message names the file: its path for `start`, which tells the operator;
 * a served hub answers callers, so it names the file without the path, and gives only the
 * system's error code (whose message would carry the path again).
 */
export function readLogKeyFile(path: string, name = path): Buffer {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const why = name === path ? (err as Error).message : ((err as NodeJS.ErrnoException).code ?? "unreadable");
    throw new ContractError("INTERNAL", `Cannot read log key file ${name}: ${why}`, {
      reason: "log_key_unreadable",
    });
  }
  let seed: Buffer;
  try {
    const parsed = JSON.parse(text) as { seed?: unknown; public_key?: unknown };
    seed = decodeHex(parsed.seed, { bytes: 32, field: "seed" });
    if (parsed.public_key !== undefined && parsed.public_key !== encodeHex(publicKeyFromSeed(seed))) {
      throw new Error("public_key does not belong to seed");
    }
  } catch (err) {
    throw new ContractError("INTERNAL", `Malformed log key file ${name}: ${(err as Error).message}`, {
      reason: "log_key_malformed",
    });
  }
  return seed;
}

/**
 * The seed in `path`, creating the file with a fresh key when there is none. The key is
 * written and fsynced under a private temporary name, then hard-linked into place (which
 * fails if the file exists): the file never exists half-written, and two processes starting
 * at once end up with the same key.
 */
export function readOrCreateLogKeyFile(path: string, name = path): Buffer {
  if (existsSync(path)) return readLogKeyFile(path, name);
  const pair = generateKeyPair();
  const text = `${JSON.stringify({ name: "log", seed: encodeHex(pair.seed), public_key: encodeHex(pair.publicKey) })}\n`;
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, "w", 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return readLogKeyFile(path, name);
    throw err;
  } finally {
    unlinkSync(tmp);
  }
  return pair.seed;
}
