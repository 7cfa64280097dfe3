import { yieldSometimes } from "./heavy/TimeSlice.js";

/** About how many characters one piece of a streamed answer gathers before it is written. */
export const JSON_CHUNK_CHARS = 64 * 1024;

/**
 * The JSON text of `value` (an object holding arrays, such as a page of the log) in pieces,
 * with `tick` between the elements of its arrays: JSON.stringify of a page near its 8 MiB
 * bound held the event loop about 100 ms in one go, and these pieces let it serve others
 * between entries (docs/security.md, "Hostile load: expensive work"). The text is the one
 * JSON.stringify(value) gives, byte for byte: the keys in the same order, undefined and
 * function members left out (null in an array), each element serialized by JSON.stringify.
 */
export async function* jsonChunks(value: object, tick: () => Promise<void> = yieldSometimes): AsyncGenerator<string> {
  let out = "{";
  let firstKey = true;
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined || typeof member === "function" || typeof member === "symbol") continue;
    out += `${firstKey ? "" : ","}${JSON.stringify(key)}:`;
    firstKey = false;
    if (!Array.isArray(member)) {
      out += JSON.stringify(member);
      continue;
    }
    out += "[";
    for (let i = 0; i < member.length; i++) {
      if (i > 0) out += ",";
      out += JSON.stringify(member[i]) ?? "null";
      if (out.length >= JSON_CHUNK_CHARS) {
        yield out;
        out = "";
      }
      await tick();
    }
    out += "]";
  }
  yield `${out}}`;
}
