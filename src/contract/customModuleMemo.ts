/**
 * The bytes and SHA-256 of the big custom predicate modules evaluated lately. Evaluating a
 * predicate decoded its module's base64 (about 10 ms for an 11 MB module) and the runner
 * hashed the bytes for its compile cache (15-25 ms), on the event loop, for every evaluation:
 * one decision may evaluate up to 32 custom predicates, often of one module, and every
 * commit of a contract evaluates them again. Here a module is decoded and hashed once and
 * remembered; each evaluation then costs a lookup and a copy of the bytes.
 *
 * Entries are found without hashing the value: V8 hashes strings longer than 16 K characters
 * by their length alone, so a Map keyed by the base64 would compare megabytes on every
 * lookup among values of one length. A fingerprint (the length and a few dozen characters
 * spread over the value) picks the candidates and `===` confirms one: the state holds the
 * same string object from commit to commit, which V8 compares by identity; an equal string
 * read again (after a reload) is compared in full once (about 10 ms for 13 M characters,
 * less than the decode and the hash) and then kept in place of the older one.
 */
import { createHash } from "node:crypto";
import { WASM_MEMO_MIN_CHARS } from "./wasmValueMemo.js";

/** A module as the runner gets it: its bytes, and their SHA-256 (hex) when the engine computed it. */
export interface DecodedModule {
  bytes: Uint8Array;
  digest?: string;
}

/** Modules kept, least recently used out: every module one decision may use, several times over. */
const KEPT = 16;
/** Bytes kept at most (the base64 values are held too, mostly by contract states anyway). */
const KEPT_BYTES = 128 * 1024 * 1024;
/** Characters sampled for the fingerprint. */
const SAMPLES = 64;

interface Entry {
  encoded: string;
  fingerprint: string;
  bytes: Uint8Array;
  digest: string;
}

let entries: Entry[] = [];
let decodes = 0;

function fingerprint(encoded: string): string {
  const n = encoded.length;
  let out = `${n}:`;
  for (let i = 0; i < SAMPLES; i++) out += encoded[Math.floor((i * (n - 1)) / (SAMPLES - 1))];
  return out;
}

/**
 * The bytes of base64 module `encoded` (a copy, which the runner may keep, change or transfer)
 * and, for a big one, their SHA-256. A module under WASM_MEMO_MIN_CHARS is decoded each time
 * (microseconds) and its digest left to the runner.
 */
export function decodeCustomModule(encoded: string): DecodedModule {
  if (encoded.length < WASM_MEMO_MIN_CHARS) return { bytes: Buffer.from(encoded, "base64") };
  const print = fingerprint(encoded);
  const at = entries.findIndex((e) => e.fingerprint === print && e.encoded === encoded);
  let entry: Entry;
  if (at >= 0) {
    entry = entries[at]!;
    entries.splice(at, 1);
    // An equal value read again (a reload) was compared in full once: keep the object the state
    // now holds, so that its next lookups are identity compares.
    entry.encoded = encoded;
  } else {
    decodes++;
    const bytes = Buffer.from(encoded, "base64");
    entry = { encoded, fingerprint: print, bytes, digest: createHash("sha256").update(bytes).digest("hex") };
  }
  entries.push(entry);
  let total = entries.reduce((sum, e) => sum + e.bytes.length, 0);
  while (entries.length > 1 && (entries.length > KEPT || total > KEPT_BYTES)) total -= entries.shift()!.bytes.length;
  return { bytes: new Uint8Array(entry.bytes), digest: entry.digest };
}

/** How many big modules were decoded and hashed since the process started (tests). */
export function customModuleDecodes(): number {
  return decodes;
}

/** Forgets every module (tests). */
export function forgetCustomModules(): void {
  entries = [];
}
