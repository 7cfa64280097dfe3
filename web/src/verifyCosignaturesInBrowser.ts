/**
 * The witnesses' cosignatures on the hub's checkpoint, checked in the browser with WebCrypto
 * alone (docs/transparency.md, "Cosignatures"; the C2SP tlog-cosignature ed25519 form). A
 * cosignature is one more signature line on the note,
 *
 *     — <witness name> base64(key id ‖ u64 big-endian timestamp ‖ ed25519 signature)
 *
 * with the key id the first 4 bytes of SHA-256(name ‖ "\n" ‖ 0x04 ‖ public key), and the
 * signature over `cosignature/v1\ntime <timestamp>\n` followed by the checkpoint body. The
 * hub's word on which witness cosigned is not used: only the witnesses' verifier keys it
 * names, which the page shows so a visitor can compare them with ones obtained elsewhere.
 */
import {
  base64OrNull,
  ed25519Key,
  noteKeyId,
  SIGNATURE_PREFIX,
  sameBytes,
  splitNote,
  type VerifyingCryptoKey,
} from "./noteCrypto.js";

/** The signature type byte of timestamped ed25519 cosignatures. */
const COSIGNATURE_TYPE = 0x04;
/** key id (4) ‖ timestamp (8) ‖ signature (64). */
const BLOB_LENGTH = 76;

/** A witness as `GET /checkpoint/key` names it. */
export interface NamedWitness {
  name: string;
  verifier_key: string;
}

/**
 * Why a cosignature line under the witness's name did not count: its verifier key is not a
 * timestamped ed25519 key whose id matches (`verifier_key`), the line is not key id ‖ timestamp
 * ‖ signature (`malformed`), it is by another key (`key_id`), or its signature does not verify
 * over this note's body (`signature`).
 */
export type CosignatureFailure = "verifier_key" | "malformed" | "key_id" | "signature";

/** What the note says for one witness: `absent` when it carries no line under its name. */
export type WitnessCosignature =
  | { name: string; status: "verified"; timestamp: number }
  | { name: string; status: "failed"; reason: CosignatureFailure; timestamp: number | null }
  | { name: string; status: "absent" };

/** A witness verifier key `<name>+<key id hex>+<base64(0x04 ‖ public key)>`, or null when it is not one. */
async function parseWitnessKey(
  text: string,
): Promise<{ name: string; id: Uint8Array; key: VerifyingCryptoKey } | null> {
  // The name and the hex key id hold no "+"; the base64 key may.
  const m = /^([^+]+)\+([0-9a-f]{8})\+(.+)$/.exec(text);
  if (m === null) return null;
  const typed = base64OrNull(m[3]!);
  if (typed === null || typed.length !== 33 || typed[0] !== COSIGNATURE_TYPE) return null;
  const publicKey = typed.slice(1);
  const id = await noteKeyId(m[1]!, COSIGNATURE_TYPE, publicKey);
  if ([...id].map((b) => b.toString(16).padStart(2, "0")).join("") !== m[2]) return null;
  return { name: m[1]!, id, key: await ed25519Key(publicKey) };
}

/** The message a cosignature at `timestamp` signs. */
const message = (body: string, timestamp: number) =>
  new TextEncoder().encode(`cosignature/v1\ntime ${timestamp}\n${body}`);

/** Checks one cosignature line's blob; the timestamp it carries, when it has one. */
async function checkBlob(
  blobText: string,
  body: string,
  w: { id: Uint8Array; key: VerifyingCryptoKey },
): Promise<{ ok: true; timestamp: number } | { ok: false; reason: CosignatureFailure; timestamp: number | null }> {
  const blob = base64OrNull(blobText);
  if (blob === null || blob.length !== BLOB_LENGTH) return { ok: false, reason: "malformed", timestamp: null };
  const time = new DataView(blob.buffer).getBigUint64(4);
  // Beyond 2^53 the decimal in the message cannot be written from a number; no real time is.
  if (time > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, reason: "malformed", timestamp: null };
  const timestamp = Number(time);
  if (!sameBytes(blob.slice(0, 4), w.id)) return { ok: false, reason: "key_id", timestamp };
  const ok = await crypto.subtle.verify({ name: "Ed25519" }, w.key, blob.slice(12), message(body, timestamp));
  return ok ? { ok: true, timestamp } : { ok: false, reason: "signature", timestamp };
}

/**
 * For each witness, in the order given: whether `note` carries a cosignature line under its
 * name, and whether one of them verifies with its key over the note's body. Several lines
 * under one name: the first that verifies counts, else the first one's failure is reported.
 * A note that is not a signed note carries nothing.
 */
export async function verifyCosignaturesInBrowser(
  note: string,
  witnesses: readonly NamedWitness[],
): Promise<WitnessCosignature[]> {
  const parts = splitNote(note);
  const signatures = (parts?.lines ?? []).flatMap((line) => {
    if (!line.startsWith(SIGNATURE_PREFIX)) return [];
    const [name, blobText, extra] = line.slice(SIGNATURE_PREFIX.length).split(" ");
    return name && blobText && extra === undefined ? [{ name, blobText }] : [];
  });
  const out: WitnessCosignature[] = [];
  for (const witness of witnesses) {
    const mine = signatures.filter((s) => s.name === witness.name);
    if (parts === null || mine.length === 0) {
      out.push({ name: witness.name, status: "absent" });
      continue;
    }
    const key = await parseWitnessKey(witness.verifier_key);
    // A key of another name would check lines the witness did not sign under this one.
    if (key === null || key.name !== witness.name) {
      out.push({ name: witness.name, status: "failed", reason: "verifier_key", timestamp: null });
      continue;
    }
    let verified: WitnessCosignature | null = null;
    let failure: WitnessCosignature | null = null;
    for (const s of mine) {
      const r = await checkBlob(s.blobText, parts.body, key);
      if (r.ok) {
        verified = { name: witness.name, status: "verified", timestamp: r.timestamp };
        break;
      }
      failure ??= { name: witness.name, status: "failed", reason: r.reason, timestamp: r.timestamp };
    }
    out.push(verified ?? failure!);
  }
  return out;
}
