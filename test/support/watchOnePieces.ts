/**
 * A probe of the hostile-load tests for work done in one piece that ordering cannot show: the
 * process's `Object.keys`, `JSON.stringify` and `JSON.parse` are watched (each still does its
 * work, on the same arguments), and so are the messages between this thread and its worker
 * threads. The most names one `Object.keys` call listed, the longest text one call wrote or
 * parsed, and the most values one message carried are kept. The hub's sliced paths list,
 * write and read a value in pieces, and send a big value to another thread as text; a
 * one-piece step over a big value lists all its names, writes or parses one of its long
 * strings whole, or has a thread message clone (or rebuild) every member of it at once.
 */
import { Worker } from "node:worker_threads";

/** The most names, characters and cloned values one call or message handled, while watched. */
export interface OnePieces {
  keys: number;
  text: number;
  parsed: number;
  cloned: number;
  /** The longest string one `Buffer.from` or `Buffer.byteLength` call encoded or measured. */
  encoded: number;
}

/** Values counted in one message at most: enough to tell a big value's members from a row's columns. */
const COUNT_UP_TO = 1_000_000;

/** The real Object.keys: counting a message must not show as a listing. */
const keys = Object.keys;

/** How many values (each object, array and primitive) `message` holds, up to COUNT_UP_TO. */
function valuesIn(message: unknown): number {
  let n = 0;
  const stack: unknown[] = [message];
  while (stack.length > 0 && n < COUNT_UP_TO) {
    const v = stack.pop();
    n++;
    if (v === null || typeof v !== "object" || ArrayBuffer.isView(v)) continue;
    if (Array.isArray(v)) for (const e of v) stack.push(e);
    else for (const k of keys(v)) stack.push((v as Record<string, unknown>)[k]);
  }
  return n;
}

/** Watches `Object.keys`, `JSON.stringify`, `JSON.parse` and worker messages until `stop()`. */
export function watchOnePieces(): { seen: OnePieces; stop(): void } {
  const seen: OnePieces = { keys: 0, text: 0, parsed: 0, cloned: 0, encoded: 0 };
  const from = Buffer.from;
  const byteLength = Buffer.byteLength;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const post = Worker.prototype.postMessage;
  const emit = Worker.prototype.emit;
  const ownEmit = Object.hasOwn(Worker.prototype, "emit");
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
  JSON.parse = ((...args: Parameters<typeof parse>) => {
    if (typeof args[0] === "string") seen.parsed = Math.max(seen.parsed, args[0].length);
    return parse(...args);
  }) as typeof parse;
  const measure = (value: unknown) => {
    if (typeof value === "string") seen.encoded = Math.max(seen.encoded, value.length);
  };
  Buffer.from = ((...args: Parameters<typeof from>) => {
    measure(args[0]);
    return from.apply(Buffer, args);
  }) as typeof from;
  Buffer.byteLength = ((...args: Parameters<typeof byteLength>) => {
    measure(args[0]);
    return byteLength.apply(Buffer, args);
  }) as typeof byteLength;
  const count = (message: unknown) => {
    seen.cloned = Math.max(seen.cloned, valuesIn(message));
  };
  Worker.prototype.postMessage = function (this: Worker, ...args: Parameters<Worker["postMessage"]>) {
    count(args[0]);
    return post.apply(this, args);
  };
  Worker.prototype.emit = function (this: Worker, name: string | symbol, ...args: unknown[]) {
    if (name === "message") count(args[0]);
    return emit.call(this, name, ...args);
  };
  return {
    seen,
    stop: () => {
      Object.keys = keys;
      JSON.stringify = stringify;
      JSON.parse = parse;
      Buffer.from = from;
      Buffer.byteLength = byteLength;
      Worker.prototype.postMessage = post;
      if (ownEmit) Worker.prototype.emit = emit;
      else delete (Worker.prototype as { emit?: unknown }).emit;
    },
  };
}
