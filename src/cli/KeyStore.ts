/**
 * The command line's key directory (docs/cli.md): one JSON file per ed25519 key,
 * `{name, seed, public_key}`, readable by its owner only (files 0600, directory 0700).
 * Location: `$CONTRACT_HUB_HOME/keys`, else `~/.config/contract-hub/keys`.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { ContractError } from "../contract/ContractError.js";
import { decodeHex, encodeHex } from "../contract/hex.js";
import { generateKeyPair, publicKeyFromSeed } from "../contract/keys.js";
import { UsageError } from "./cliContext.js";

/** A key as the command line uses it. */
export interface StoredKey {
  name: string;
  seed: Buffer;
  /** Public key, 64 lower-case hex. */
  publicKey: string;
}

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;
export const DEFAULT_KEY_NAME = "default";

/** The key directory for an environment. */
export function keyDirectory(env: Record<string, string | undefined>): string {
  const home = env.CONTRACT_HUB_HOME;
  return home ? join(home, "keys") : join(homedir(), ".config", "contract-hub", "keys");
}

/** True when `name` may name a key (it becomes a file name). */
export function isKeyName(name: string): boolean {
  return NAME.test(name) && !name.endsWith(".json");
}

/** Reads and writes the keys of one directory. */
export class KeyStore {
  constructor(readonly dir: string) {}

  /** The store of the environment's key directory. */
  static of(env: Record<string, string | undefined>): KeyStore {
    return new KeyStore(keyDirectory(env));
  }

  /** Generates and stores a new key; refuses to overwrite an existing one. */
  generate(name: string): StoredKey {
    if (!isKeyName(name)) throw new UsageError(`invalid key name ${JSON.stringify(name)} (letters, digits, _ . -)`);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    const file = this.#file(name);
    if (existsSync(file)) throw keyExists(name, this.dir);
    const pair = generateKeyPair();
    const key = { name, seed: pair.seed, publicKey: encodeHex(pair.publicKey) };
    // Written to a private temp file of this run, then linked into place: a key file never
    // exists half-written or readable by others, and a link (unlike a rename) never replaces
    // a file, so of two keygens of one name at once the second is refused instead of
    // silently replacing the key the first one printed (and that may already be registered).
    const text = `${JSON.stringify(toJson(key), null, 2)}\n`;
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    writeFileSync(tmp, text, { mode: 0o600, flag: "wx" });
    try {
      linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") throw keyExists(name, this.dir);
      // A file system without hard links: an exclusive create is as safe against replacing.
      try {
        writeFileSync(file, text, { mode: 0o600, flag: "wx" });
      } catch (again) {
        if ((again as NodeJS.ErrnoException).code === "EEXIST") throw keyExists(name, this.dir);
        throw again;
      }
    } finally {
      rmSync(tmp, { force: true });
    }
    return key;
  }

  /** Every key, by name. */
  list(): StoredKey[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((f) => f.endsWith(".json"))
      .map((f) => f.slice(0, -".json".length))
      .filter(isKeyName)
      .sort()
      .map((name) => this.get(name));
  }

  /** The key named `name`, or null. */
  find(name: string): StoredKey | null {
    if (!isKeyName(name) || !existsSync(this.#file(name))) return null;
    return this.get(name);
  }

  /** The key named `name`; a usage error when there is none. */
  get(name: string): StoredKey {
    const file = this.#file(name);
    if (!isKeyName(name) || !existsSync(file)) {
      throw new UsageError(`no key named ${JSON.stringify(name)} in ${this.dir} (create one: contract-hub keygen)`);
    }
    let raw: { name?: unknown; seed?: unknown; public_key?: unknown };
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (err) {
      throw new ContractError("INVALID_REQUEST", `Cannot read key file ${file}: ${(err as Error).message}`);
    }
    const seed = decodeHex(raw.seed, { bytes: 32, field: `seed of key ${name}` });
    const publicKey = encodeHex(publicKeyFromSeed(seed));
    if (raw.public_key !== undefined && raw.public_key !== publicKey) {
      throw new ContractError("INVALID_REQUEST", `Key file ${file}: public_key does not match the seed`, {
        reason: "key_mismatch",
      });
    }
    return { name, seed, publicKey };
  }

  /**
   * A function from a signer (`ed25519:<hex>` or hex) to the name of the local key that is
   * it, for output meant for people. The directory is read once (a log of thousands of
   * commits names each signer without reading every key file again), and a key file that
   * cannot be read only goes unnamed: showing a log needs no key.
   */
  namer(): (signer: string) => string | null {
    const names = new Map<string, string>();
    if (existsSync(this.dir)) {
      for (const f of readdirSync(this.dir)) {
        const name = f.slice(0, -".json".length);
        if (!f.endsWith(".json") || !isKeyName(name)) continue;
        try {
          const key = this.get(name);
          if (!names.has(key.publicKey)) names.set(key.publicKey, key.name);
        } catch {
          // Unreadable: its signer is shown by its public key.
        }
      }
    }
    return (signer) => names.get(signer.replace(/^ed25519:/, "")) ?? null;
  }

  /**
   * The key a command signs with (docs/cli.md): the named one, else the remembered one,
   * else `default`, else the only key. Null when none applies (several keys, none chosen);
   * a command that writes then reports a usage error.
   */
  choose(flag: string | undefined, remembered: string | undefined): StoredKey | null {
    if (flag !== undefined) return this.get(flag);
    if (remembered !== undefined && this.find(remembered) !== null) return this.get(remembered);
    const def = this.find(DEFAULT_KEY_NAME);
    if (def !== null) return def;
    const all = this.list();
    return all.length === 1 ? all[0]! : null;
  }

  /** Like `choose`, but a missing or ambiguous key is a usage error. */
  require(flag: string | undefined, remembered: string | undefined): StoredKey {
    const key = this.choose(flag, remembered);
    if (key !== null) return key;
    const n = this.list().length;
    throw new UsageError(
      n === 0
        ? `no key in ${this.dir}: create one with contract-hub keygen`
        : `${n} keys in ${this.dir} and none chosen: pass --key NAME`,
    );
  }

  #file(name: string): string {
    return join(this.dir, `${name}.json`);
  }
}

/** The refusal of a taken key name (docs/cli.md: CONFLICT, exit 1). */
function keyExists(name: string, dir: string): ContractError {
  return new ContractError("CONFLICT", `A key named ${JSON.stringify(name)} already exists in ${dir}`, {
    reason: "key_exists",
    name,
  });
}

function toJson(k: StoredKey): { name: string; seed: string; public_key: string } {
  return { name: k.name, seed: encodeHex(k.seed), public_key: k.publicKey };
}
