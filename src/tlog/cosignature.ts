/**
 * Witness cosignatures in the C2SP tlog-cosignature form, ed25519 flavour (docs/transparency.md):
 * a witness that checked a checkpoint's consistency adds a signature line to the note,
 *
 *     — <witness name> base64(key id ‖ u64 big-endian timestamp ‖ ed25519 signature)
 *
 * where the key id is the first 4 bytes of SHA-256(name ‖ "\n" ‖ 0x04 ‖ public key) (0x04 names
 * timestamped ed25519 cosignatures) and the signature covers
 *
 *     cosignature/v1\ntime <timestamp>\n<the checkpoint body>
 *
 * The timestamp is in seconds since the epoch. The message does not name the witness, so a
 * witness key must not be shared between witnesses of different names.
 */
import type { KeyObject } from "node:crypto";
import { sign, verify } from "../contract/keys.js";
import { keyId, parseVerifierKey, SIGNATURE_PREFIX, splitNote, verifierKey } from "./checkpoint.js";

/** The signature type byte of timestamped ed25519 cosignatures. */
export const COSIGNATURE_TYPE = 0x04;

/** A witness as its clients know it: its name and ed25519 public key. */
export interface WitnessKey {
  name: string;
  publicKey: Buffer;
}

/** The 4-byte key id of a witness key. */
export const witnessKeyId = (w: WitnessKey): Buffer => keyId(w.name, w.publicKey, COSIGNATURE_TYPE);

/** The witness's verifier key: `<name>+<key id hex>+<base64(0x04 ‖ public key)>`. */
export const witnessVerifierKey = (w: WitnessKey): string => verifierKey(w.name, w.publicKey, COSIGNATURE_TYPE);

/** Parses a witness verifier key; throws a RangeError naming what is wrong. */
export function parseWitnessVerifierKey(text: string): WitnessKey {
  const { origin, publicKey } = parseVerifierKey(text, COSIGNATURE_TYPE);
  return { name: origin, publicKey };
}

/** The message a cosignature signs. */
export function cosignatureMessage(body: string, timestamp: number): Buffer {
  return Buffer.from(`cosignature/v1\ntime ${timestamp}\n${body}`, "utf8");
}

/** The cosignature line (with its newline) of witness `w` over a checkpoint body, at `timestamp` (seconds). */
export function cosign(body: string, w: WitnessKey, key: KeyObject, timestamp: number): string {
  const time = Buffer.alloc(8);
  time.writeBigUInt64BE(BigInt(timestamp));
  const blob = Buffer.concat([witnessKeyId(w), time, sign(key, cosignatureMessage(body, timestamp))]);
  return `${SIGNATURE_PREFIX}${w.name} ${blob.toString("base64")}\n`;
}

/** A cosignature that verified. */
export interface VerifiedCosignature {
  name: string;
  timestamp: number;
  /** The note's signature line, without its newline. */
  line: string;
}

/**
 * The valid cosignatures on `note` by the witnesses in `trusted`, at most one per witness.
 * Lines by other keys are ignored; a line with a trusted witness's name and key id whose
 * signature fails is not counted. Throws a CheckpointError when the note is malformed.
 */
export function verifyCosignatures(note: string, trusted: readonly WitnessKey[]): VerifiedCosignature[] {
  const { body, signatures } = splitNote(note);
  const found = new Map<string, VerifiedCosignature>();
  for (const { name, blob } of signatures) {
    const w = trusted.find((t) => t.name === name && blob.length === 76 && blob.subarray(0, 4).equals(witnessKeyId(t)));
    if (w === undefined || found.has(w.name)) continue;
    const time = blob.readBigUInt64BE(4);
    if (time > BigInt(Number.MAX_SAFE_INTEGER)) continue;
    const timestamp = Number(time);
    if (!verify(w.publicKey, cosignatureMessage(body, timestamp), blob.subarray(12))) continue;
    found.set(w.name, { name, timestamp, line: `${SIGNATURE_PREFIX}${name} ${blob.toString("base64")}` });
  }
  return [...found.values()];
}
