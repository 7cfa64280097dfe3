/**
 * Worker thread of VerifyPool: verifies packed records (public key 32 | message 32 |
 * signature 64 bytes) with ed25519 and answers one byte per record (1 valid, 0 not). Keys
 * arrive already checked against the weak-key list by the pool's caller.
 */
import { createPublicKey, verify as cryptoVerify, type KeyObject } from "node:crypto";
import { parentPort } from "node:worker_threads";
import { announceThread } from "../lib/threadRoles.js";
import { ED25519_SPKI_PREFIX } from "./keys.js";
import { RECORD_BYTES } from "./VerifyPool.js";

/** Imported keys by their raw bytes (as latin1 text); a push signs with few keys, many times. */
const keys = new Map<string, KeyObject>();
const KEY_CACHE_LIMIT = 4096;

function keyOf(raw: Uint8Array): KeyObject {
  const id = Buffer.from(raw.buffer, raw.byteOffset, 32).toString("latin1");
  let key = keys.get(id);
  if (key === undefined) {
    if (keys.size >= KEY_CACHE_LIMIT) keys.clear();
    key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: "der", type: "spki" });
    keys.set(id, key);
  }
  return key;
}

// For the hub bench's split of CPU time by thread (HUB_THREAD_ROLES_FILE); nothing when unset.
announceThread("verify");
parentPort!.on("message", ({ id, records }: { id: number; records: Uint8Array }) => {
  const n = records.byteLength / RECORD_BYTES;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const o = i * RECORD_BYTES;
    try {
      const key = keyOf(records.subarray(o, o + 32));
      out[i] = cryptoVerify(null, records.subarray(o + 32, o + 64), key, records.subarray(o + 64, o + 128)) ? 1 : 0;
    } catch {
      out[i] = 0; // a key OpenSSL will not import is no valid signer
    }
  }
  parentPort!.postMessage({ id, out }, [out.buffer]);
});
