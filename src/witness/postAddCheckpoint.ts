import { readBoundedText } from "../tlog/readBoundedText.js";

/**
 * The submitting side of the witness API: one `POST <url>/add-checkpoint`, bounded in time and
 * in the size of the answer read (readBoundedText: past it, a CheckpointError).
 */
export async function postAddCheckpoint(
  url: string,
  body: string,
  timeoutMs = 10_000,
): Promise<{ status: number; body: string }> {
  const res = await fetch(`${url}/add-checkpoint`, {
    method: "POST",
    body,
    headers: { "content-type": "text/plain; charset=utf-8" },
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.status, body: await readBoundedText(res) };
}
