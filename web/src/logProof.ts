/**
 * The hub's transparency log checked in the browser with WebCrypto alone (docs/transparency.md):
 * the checkpoint's ed25519 signature (C2SP signed note, key id over origin and key), and the
 * RFC 9162 inclusion proof of a commit hash against the checkpoint's root. Nothing here
 * trusts the hub's arithmetic; it trusts the key the hub publishes, which the page shows so
 * a visitor can compare it with one they obtained elsewhere.
 */
const bytes = (hex: string): Uint8Array<ArrayBuffer> => {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
};
const base64 = (text: string): Uint8Array<ArrayBuffer> => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const concat = (...parts: Uint8Array[]): Uint8Array<ArrayBuffer> => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const sha256 = async (...parts: Uint8Array[]) =>
  new Uint8Array(await crypto.subtle.digest("SHA-256", concat(...parts)));
const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);
const LEAF = Uint8Array.of(0);
const NODE = Uint8Array.of(1);

export interface BrowserCheckpoint {
  origin: string;
  size: number;
  root: Uint8Array;
}

/** Parses the note and checks the log key's signature on it; null when anything fails. */
export async function verifyNote(
  note: string,
  origin: string,
  publicKeyHex: string,
): Promise<BrowserCheckpoint | null> {
  const split = note.indexOf("\n\n");
  if (split < 0) return null;
  const body = note.slice(0, split + 1);
  const [noteOrigin, sizeText, rootText] = body.slice(0, -1).split("\n");
  if (noteOrigin !== origin || !/^(0|[1-9][0-9]*)$/.test(sizeText ?? "") || rootText === undefined) return null;
  const pub = bytes(publicKeyHex);
  const id = (await sha256(new TextEncoder().encode(`${origin}\n`), Uint8Array.of(1), pub)).slice(0, 4);
  const key = await crypto.subtle.importKey("raw", pub, { name: "Ed25519" }, false, ["verify"]);
  for (const line of note.slice(split + 2, -1).split("\n")) {
    const [dash, name, blobText] = line.split(" ");
    if (dash !== "\u2014" || name !== origin || blobText === undefined) continue;
    const blob = base64(blobText);
    if (blob.length !== 68 || !same(blob.slice(0, 4), id)) continue;
    if (await crypto.subtle.verify({ name: "Ed25519" }, key, blob.slice(4), new TextEncoder().encode(body))) {
      return { origin, size: Number(sizeText), root: base64(rootText) };
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
  let r = await sha256(LEAF, bytes(hash));
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = await sha256(NODE, bytes(p), r);
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2;
        sn = Math.floor(sn / 2);
      }
    } else {
      r = await sha256(NODE, r, bytes(p));
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && same(r, cp.root);
}
