import { safeJsonParse } from "../contract/canonicalJson.js";
import type { Limits } from "../contract/limits.js";
import { parseJsonInSlices } from "../contract/parseJsonInSlices.js";
import { decodeUtf8 } from "./decodeUtf8.js";

/**
 * Texts at least this long are parsed in slices. JSON.parse of 64 KiB of the costliest shapes
 * (nested empty arrays) takes under 10 ms; of 1 MiB, the limit of most routes, over 100 ms.
 */
export const SLICED_JSON_CHARS = 64 * 1024;

/** The limits a JSON text from a client is parsed under (docs/security.md). */
export type JsonLimits = Pick<Limits, "jsonDepth" | "jsonContainers">;

let lastTurn: Promise<void> = Promise.resolve();

/**
 * One rebuild of a heavy value at a time, in arrival order (parseJsonInSlices `turn`): each
 * costs memory many times its text's size while it runs, and a body in slices no longer
 * waits for the one before it to finish as a single JSON.parse call did.
 */
export function heavyJsonTurn(): Promise<() => void> {
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const before = lastTurn;
  lastTurn = before.then(() => mine);
  return before.then(() => release);
}

/**
 * A JSON text as received (a request body, a WebSocket frame) parsed with the hub's hardened
 * parser (depth, duplicate names, big integers, `__proto__`); a long one in slices between
 * `tick`s, which yield the event loop to others and charge the sender's work budget.
 */
export function parseJsonText(text: string, limits: JsonLimits, tick: () => Promise<void>): Promise<unknown> {
  const parse = { maxDepth: limits.jsonDepth, maxContainers: limits.jsonContainers };
  if (text.length < SLICED_JSON_CHARS) return Promise.resolve().then(() => safeJsonParse(text, parse));
  return parseJsonInSlices(text, parse, { tick, turn: heavyJsonTurn });
}

/**
 * A request body parsed as JSON, refusing bytes that are not UTF-8 instead of silently
 * replacing them. An empty body is `undefined`, so the route's schema reports the missing body.
 */
export async function decodeJsonBody(raw: Buffer, limits: JsonLimits, tick: () => Promise<void>) {
  if (raw.length === 0) return undefined;
  return parseJsonText(decodeUtf8(raw), limits, tick);
}
