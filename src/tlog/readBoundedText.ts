/**
 * Reads what a hub or a witness answered, up to a limit. Checkpoints, log keys, proofs and
 * cosignature lines are small (a proof of 63 hashes and a note fit in 8 KiB), so a peer that
 * answers more (hostile, or not a hub or witness at all) is refused once the limit is passed
 * instead of being read to the end into memory. Used by the witness, the hub talking to its
 * witnesses, and the client checking a hub.
 */
import { CheckpointError } from "./checkpoint.js";

/** The most bytes read of one answer: the witness's own limit on a request body. */
export const MAX_ANSWER = 64 * 1024;

/** What is thrown past the limit (by default a CheckpointError naming it). */
export type TooLarge = (limit: number) => Error;

const checkpointTooLarge: TooLarge = (limit) => new CheckpointError(`the answer exceeds ${limit} bytes`);

/** The body's bytes; past `limit` bytes, `tooLarge(limit)`, the rest unread. */
export async function readBoundedBytes(
  res: Response,
  limit = MAX_ANSWER,
  tooLarge: TooLarge = checkpointTooLarge,
): Promise<Buffer> {
  if (Number(res.headers.get("content-length")) > limit) {
    await res.body?.cancel();
    throw tooLarge(limit);
  }
  if (res.body === null) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The body as text (UTF-8, as `Response.text()` decodes it); past `limit` bytes, as readBoundedBytes. */
export async function readBoundedText(res: Response, limit = MAX_ANSWER, tooLarge?: TooLarge): Promise<string> {
  return new TextDecoder().decode(await readBoundedBytes(res, limit, tooLarge));
}
