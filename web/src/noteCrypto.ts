/**
 * Byte and WebCrypto helpers shared by the browser's checks of signed notes: the log key's
 * checkpoint signature and inclusion proofs (logProof.ts) and the witnesses' cosignatures
 * (verifyCosignaturesInBrowser.ts). Only what WebCrypto offers, so nothing here needs Node.
 */
export const hexBytes = (hex: string): Uint8Array<ArrayBuffer> => {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
};

/** Decodes standard base64; throws on characters outside the alphabet (atob does). */
export const base64Bytes = (text: string): Uint8Array<ArrayBuffer> =>
  Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** Standard base64, or null when the text is not: what the hub sends is checked, never trusted to parse. */
export function base64OrNull(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    return base64Bytes(text);
  } catch {
    return null;
  }
}

export const concatBytes = (...parts: Uint8Array[]): Uint8Array<ArrayBuffer> => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

export const sha256 = async (...parts: Uint8Array[]): Promise<Uint8Array<ArrayBuffer>> =>
  new Uint8Array(await crypto.subtle.digest("SHA-256", concatBytes(...parts)));

export const sameBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** The signed-note key id: the first 4 bytes of SHA-256(name ‖ "\n" ‖ type ‖ public key). */
export const noteKeyId = async (name: string, type: number, publicKey: Uint8Array): Promise<Uint8Array<ArrayBuffer>> =>
  (await sha256(new TextEncoder().encode(`${name}\n`), Uint8Array.of(type), publicKey)).slice(0, 4);

/**
 * A WebCrypto key, named through `crypto.subtle` because the root type check (tests import
 * these modules) has Node's globals and no DOM library, where `CryptoKey` is not global.
 */
export type VerifyingCryptoKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/** An ed25519 public key (32 raw bytes) for WebCrypto's verify. */
export const ed25519Key = (publicKey: Uint8Array<ArrayBuffer>): Promise<VerifyingCryptoKey> =>
  crypto.subtle.importKey("raw", publicKey, { name: "Ed25519" }, false, ["verify"]);

/** Every signature line of a signed note starts with an em dash and a space. */
export const SIGNATURE_PREFIX = "\u2014 ";

/**
 * A signed note's body (every line up to the blank line, with their newlines) and its
 * signature lines (without their newlines); null when it is not a signed note.
 */
export function splitNote(note: string): { body: string; lines: string[] } | null {
  const split = note.indexOf("\n\n");
  if (split < 0 || !note.endsWith("\n")) return null;
  return { body: note.slice(0, split + 1), lines: note.slice(split + 2, -1).split("\n") };
}
