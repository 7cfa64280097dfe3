/**
 * Reads what a witness or a hub answered, up to a limit. Checkpoints, consistency proofs and
 * cosignature lines are small (a proof of 63 hashes and a note fit in 8 KiB), so a peer that
 * answers more (hostile, or not a hub or witness at all) is refused once the limit is passed
 * instead of being read to the end into memory.
 */
import { CheckpointError } from "../tlog/checkpoint.js";

/** The most bytes read of one answer: the witness's own limit on a request body. */
export const MAX_ANSWER = 64 * 1024;

/** The body as text (UTF-8, as `Response.text()` decodes it); past `limit` bytes, a CheckpointError naming it. */
export async function readBoundedText(res: Response, limit = MAX_ANSWER): Promise<string> {
  const tooLarge = () => new CheckpointError(`the answer exceeds ${limit} bytes`);
  if (Number(res.headers.get("content-length")) > limit) {
    await res.body?.cancel();
    throw tooLarge();
  }
  if (res.body === null) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
