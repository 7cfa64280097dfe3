/**
 * The hub's transparency log checked in the browser with WebCrypto alone (docs/transparency.md):
 * the checkpoint's ed25519 signature (C2SP signed note, key id over origin and key), and the
 * RFC 9162 inclusion proof of a commit hash against the checkpoint's root. Nothing here
 * trusts the hub's arithmetic; it trusts the key the hub publishes, which the page shows so
 * a visitor can compare it with one they obtained elsewhere.
 */
import { base64OrNull, ed25519Key, hexBytes, noteKeyId, sameBytes, sha256, splitNote } from "./noteCrypto.js";

/** The signature type byte of ed25519 signed notes (the log key's). */
const ED25519_TYPE = 0x01;
const LEAF = Uint8Array.of(0);
const NODE = Uint8Array.of(1);

export interface BrowserCheckpoint {
  origin: string;
  size: number;
  root: Uint8Array;
}

/**
 * Parses the note and checks the log key's signature on it; null when anything fails,
 * including text the hub should never send (a root or a signature that is not base64): the
 * page then shows the checkpoint as unverified instead of failing.
 */
export async function verifyNote(
  note: string,
  origin: string,
  publicKeyHex: string,
): Promise<BrowserCheckpoint | null> {
  const parts = splitNote(note);
  if (parts === null) return null;
  const { body, lines } = parts;
  const [noteOrigin, sizeText, rootText] = body.slice(0, -1).split("\n");
  if (noteOrigin !== origin || !/^(0|[1-9][0-9]*)$/.test(sizeText ?? "") || rootText === undefined) return null;
  const root = base64OrNull(rootText);
  if (root === null || root.length !== 32) return null;
  const pub = hexBytes(publicKeyHex);
  const id = await noteKeyId(origin, ED25519_TYPE, pub);
  const key = await ed25519Key(pub);
  for (const line of lines) {
    const [dash, name, blobText] = line.split(" ");
    if (dash !== "\u2014" || name !== origin || blobText === undefined) continue;
    const blob = base64OrNull(blobText);
    if (blob === null || blob.length !== 68 || !sameBytes(blob.slice(0, 4), id)) continue;
    if (await crypto.subtle.verify({ name: "Ed25519" }, key, blob.slice(4), new TextEncoder().encode(body))) {
      return { origin, size: Number(sizeText), root };
    }
  }
  return null;
}

/** RFC 9162 inclusion check of commit `hash` at `index` in the checkpoint's tree. */
export async function verifyInclusionInBrowser(
  hash: string,
  index: number,
  proof: readonly string[],
  cp: BrowserCheckpoint,
): Promise<boolean> {
  if (index < 0 || index >= cp.size) return false;
  let fn = index;
  let sn = cp.size - 1;
  let r = await sha256(LEAF, hexBytes(hash));
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = await sha256(NODE, hexBytes(p), r);
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2;
        sn = Math.floor(sn / 2);
      }
    } else {
      r = await sha256(NODE, r, hexBytes(p));
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && sameBytes(r, cp.root);
}
