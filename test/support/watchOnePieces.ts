/**
 * A probe of the hostile-load tests for work done in one piece that ordering cannot show: the
 * process's `Object.keys` and `JSON.stringify` are watched (each still does its work, on the
 * same arguments) and the most names one call listed and the longest text one call wrote are
 * kept. The hub's sliced paths list and write a value in pieces; a one-piece step over a big
 * value lists all its names or writes one of its long strings whole.
 */

/** The most names one `Object.keys` call listed and the longest text one `JSON.stringify` call wrote, while watched. */
export interface OnePieces {
  keys: number;
  text: number;
}

/** Watches `Object.keys` and `JSON.stringify` until `stop()`. */
export function watchOnePieces(): { seen: OnePieces; stop(): void } {
  const seen: OnePieces = { keys: 0, text: 0 };
  const keys = Object.keys;
  const stringify = JSON.stringify;
  Object.keys = (o: object) => {
    const out = keys(o);
    seen.keys = Math.max(seen.keys, out.length);
    return out;
  };
  JSON.stringify = ((...args: Parameters<typeof stringify>) => {
    const out = stringify(...args);
    if (typeof out === "string") seen.text = Math.max(seen.text, out.length);
    return out;
  }) as typeof stringify;
  return {
    seen,
    stop: () => {
      Object.keys = keys;
      JSON.stringify = stringify;
    },
  };
}
