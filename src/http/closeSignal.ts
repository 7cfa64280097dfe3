import type { ServerResponse } from "node:http";

/**
 * A signal aborted when the connection of `res`'s request closes before the response is
 * finished: the client gave up, so work done only for its answer (a language model's call)
 * can stop. A response that was sent never aborts it. The transport makes one only for the
 * operations that take a signal, so other requests pay nothing for it.
 */
export function closeSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  // The connection may have closed while the request was authenticated and its body read.
  if (res.destroyed) controller.abort();
  else
    res.once("close", () => {
      if (!res.writableFinished) controller.abort();
    });
  return controller.signal;
}
