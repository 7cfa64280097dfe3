/**
 * The bounded questions a command asks its hub before writing a commit (`send`'s destination
 * and balance, `recv`'s receipt): each waits so long at most, and then the requests it made
 * are cancelled, not merely left behind. A request left behind keeps its connection, and with
 * it the process, alive for as long as the hub holds it; a cancelled one closes it.
 */

/**
 * Runs `ask` with a signal that aborts after `ms` (the rejection then says
 * `no answer within N s`), or as soon as `ask` settles, so no request it started outlives it:
 * one of two parallel requests still pending when the other failed is cancelled too.
 */
export async function askHubWithin<T>(ms: number, ask: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new Error(`no answer within ${ms / 1000} s`)), ms);
  // The bound holds even for a wait that does not listen to the signal.
  const gaveUp = new Promise<never>((_, fail) =>
    stop.signal.addEventListener("abort", () => fail(stop.signal.reason), { once: true }),
  );
  try {
    return await Promise.race([ask(stop.signal), gaveUp]);
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
}
