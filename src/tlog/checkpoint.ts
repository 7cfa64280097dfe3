/**
 * Checkpoints: the tree's size and root, signed by the log key as a signed note in the C2SP
 * format (tlog-checkpoint over signed-note), so any tool that reads Go's checksum database
 * or Sigsum checkpoints reads ours (docs/transparency.md):
 *
 *     <origin>\n<size>\n<base64 root>\n\n— <origin> <base64(key id ‖ signature)>\n
 *
 * The ed25519 signature covers the three body lines with their newlines. The key id is the
 * first 4 bytes of SHA-256(origin ‖ "\n" ‖ 0x01 ‖ public key); 0x01 names ed25519. Other
 * signature lines (a witness's cosignatures) are carried along and ignored here.
 */
import { createHash } from "node:crypto";
import { type SigningKey, sign, verify } from "../contract/keys.js";

/** Origins the hub accepts for `--log-origin`. */
export const ORIGIN_PATTERN = /^[A-Za-z0-9._/:-]{1,128}$/;

/** The signature type byte of ed25519 in signed notes. */
const ED25519_TYPE = 0x01;
/** Every signature line of a signed note starts with an em dash and a space. */
export const SIGNATURE_PREFIX = "\u2014 ";

/** A checkpoint's content. */
export interface Checkpoint {
  origin: string;
  size: number;
  root: Buffer;
}

/** The 4-byte key id of a key named `origin` (the signature type byte defaults to ed25519 notes). */
export function keyId(origin: string, publicKey: Uint8Array, type = ED25519_TYPE): Buffer {
  return createHash("sha256")
    .update(`${origin}\n`)
    .update(Buffer.from([type]))
    .update(publicKey)
    .digest()
    .subarray(0, 4);
}

/** The signed-note verifier key: `<origin>+<key id hex>+<base64(type ‖ public key)>` (type 0x01: ed25519 notes). */
export function verifierKey(origin: string, publicKey: Uint8Array, type = ED25519_TYPE): string {
  const typed = Buffer.concat([Buffer.from([type]), publicKey]);
  return `${origin}+${keyId(origin, publicKey, type).toString("hex")}+${typed.toString("base64")}`;
}

/** Parses a verifier key of signature type `type`; throws a RangeError naming what is wrong. */
export function parseVerifierKey(text: string, type = ED25519_TYPE): { origin: string; publicKey: Buffer } {
  // The origin and the hex key id hold no "+"; the base64 key may.
  const m = /^([^+]+)\+([0-9a-f]{8})\+(.+)$/.exec(text);
  if (m === null) throw new RangeError("verifier key must be <name>+<key id>+<key>");
  const [, origin, id, key] = m as unknown as [string, string, string, string];
  const typed = Buffer.from(key, "base64");
  if (typed.length !== 33 || typed[0] !== type || typed.toString("base64") !== key) {
    throw new RangeError(`verifier key is not an ed25519 key of type 0x0${type}`);
  }
  const publicKey = typed.subarray(1);
  if (keyId(origin, publicKey, type).toString("hex") !== id) {
    throw new RangeError("verifier key id does not match its key");
  }
  return { origin, publicKey };
}

/** The default origin of a log key: `contract-hub/` and 16 hex of SHA-256 of the key. */
export function defaultOrigin(publicKey: Uint8Array): string {
  return `contract-hub/${createHash("sha256").update(publicKey).digest("hex").slice(0, 16)}`;
}

/** The note body the log key signs. */
export function checkpointBody(c: Checkpoint): string {
  return `${c.origin}\n${c.size}\n${c.root.toString("base64")}\n`;
}

/** The signed checkpoint note. */
export function signCheckpoint(c: Checkpoint, key: SigningKey, publicKey: Uint8Array): string {
  const body = checkpointBody(c);
  const signature = sign(key, Buffer.from(body, "utf8"));
  const blob = Buffer.concat([keyId(c.origin, publicKey), signature]).toString("base64");
  return `${body}\n${SIGNATURE_PREFIX}${c.origin} ${blob}\n`;
}

/** Why a checkpoint note was refused. */
export class CheckpointError extends Error {
  override readonly name = "CheckpointError";
}

/** A signature line of a note: the key name and the decoded base64 (key id ‖ signature). */
export interface NoteSignature {
  name: string;
  blob: Buffer;
}

/** Whether `text` holds an ASCII control character other than newline: a signed note holds none (C2SP signed-note). */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 && c !== 0x0a) return true;
  }
  return false;
}
/** A signature line: the key name (no Unicode space, no "+") and standard base64. */
const SIGNATURE_LINE = /^\u2014 ([^\s+]+) ([A-Za-z0-9+/]+={0,2})$/u;

/**
 * Splits a signed note into its body (every line up to the blank line, with their newlines)
 * and its signature lines; throws a CheckpointError when it is not a signed note: a control
 * character other than newline anywhere, or a signature line that is not an em dash, a space,
 * a key name, a space and the canonical base64 of a 4-byte key id and at least one byte.
 */
export function splitNote(note: string): { body: string; signatures: NoteSignature[] } {
  const split = note.indexOf("\n\n");
  if (split < 0 || !note.endsWith("\n") || hasControl(note)) {
    throw new CheckpointError("checkpoint is not a signed note");
  }
  const signatures: NoteSignature[] = [];
  for (const line of note.slice(split + 2, -1).split("\n")) {
    const m = SIGNATURE_LINE.exec(line);
    const blob = m === null ? undefined : Buffer.from(m[2]!, "base64");
    if (m === null || blob === undefined || blob.length < 5 || blob.toString("base64") !== m[2]) {
      throw new CheckpointError("malformed signature line");
    }
    signatures.push({ name: m[1]!, blob });
  }
  return { body: note.slice(0, split + 1), signatures };
}

/** Parses a checkpoint's body: exactly the origin, size and base64 root lines. */
export function parseCheckpointBody(body: string): Checkpoint {
  const lines = body.slice(0, -1).split("\n");
  if (lines.length !== 3) throw new CheckpointError("checkpoint body must have exactly 3 lines");
  const [origin, sizeText, rootText] = lines as [string, string, string];
  if (!/^(0|[1-9][0-9]{0,15})$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText))) {
    throw new CheckpointError("checkpoint size is not a decimal integer");
  }
  const root = Buffer.from(rootText, "base64");
  if (root.length !== 32 || root.toString("base64") !== rootText) {
    throw new CheckpointError("checkpoint root is not a base64 SHA-256 hash");
  }
  return { origin, size: Number(sizeText), root };
}

/**
 * Parses a checkpoint note and checks the log key's signature on it: the origin must be
 * `origin`, and every signature line of that origin with the key's id (at least one) must be
 * the key's valid signature. Throws a CheckpointError naming the first problem.
 */
export function verifyCheckpoint(note: string, origin: string, publicKey: Uint8Array): Checkpoint {
  const { body, signatures } = splitNote(note);
  const checkpoint = parseCheckpointBody(body);
  if (checkpoint.origin !== origin) {
    throw new CheckpointError(`checkpoint origin is "${checkpoint.origin}", expected "${origin}"`);
  }
  const id = keyId(origin, publicKey);
  let verified = false;
  for (const { name, blob } of signatures) {
    if (name !== origin || !blob.subarray(0, 4).equals(id)) continue;
    // The log key's name and id: the line must be its valid signature (a short one is not).
    if (blob.length !== 68 || !verify(publicKey, Buffer.from(body, "utf8"), blob.subarray(4))) {
      throw new CheckpointError("checkpoint signature does not verify with the log key");
    }
    verified = true;
  }
  if (!verified) throw new CheckpointError("checkpoint carries no signature by the log key");
  return checkpoint;
}
