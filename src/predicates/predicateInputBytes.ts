/**
 * The UTF-8 JSON a custom predicate receives (docs/predicates-wasm.md): `{args, contract_id,
 * commit: {hash, parent, data, labels, signers, timestamp}, state}`, every object's keys in
 * sorted order (see wasmRunner.ts), byte for byte what the whole input sorted and serialised
 * in one go gives, so gas is unchanged.
 *
 * The state is most of it and grows with the contract: serialising megabytes of it held the
 * event loop for hundreds of milliseconds, again for every custom predicate of the commit.
 * The commit and state part is therefore serialised once per pair of objects (the engine
 * hands every predicate of one commit the same two), in slices that let the event loop turn,
 * and each evaluation only adds its arguments in front.
 */
import type { WasmPredicateInput } from "../contract/WasmPredicate.js";

/** Characters serialised between two turns of the event loop (a few milliseconds of work). */
export const SLICE_CHARS = 256 * 1024;

const encoder = new TextEncoder();
/** `,"commit":…,"state":…}` by state object, then commit object. */
const tails = new WeakMap<object, WeakMap<object, Promise<Uint8Array>>>();

/** Rebuilds `value` with every object's keys in sorted order (arrays keep their order). */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeysDeep(v);
  }
  return out;
}

/** The input document of one evaluation, as bytes. */
export async function predicateInputBytes(input: WasmPredicateInput): Promise<Uint8Array> {
  const head = encoder.encode(
    `{"args":${JSON.stringify(sortKeysDeep(input.args))},"contract_id":${JSON.stringify(input.contract_id)}`,
  );
  const tail = await tailOf(input.commit, input.state);
  const out = new Uint8Array(head.length + tail.length);
  out.set(head, 0);
  out.set(tail, head.length);
  return out;
}

function tailOf(commit: WasmPredicateInput["commit"], state: unknown): Promise<Uint8Array> {
  if (state === null || typeof state !== "object") return serialiseTail(commit, state);
  let byCommit = tails.get(state);
  if (byCommit === undefined) {
    byCommit = new WeakMap();
    tails.set(state, byCommit);
  }
  let tail = byCommit.get(commit);
  if (tail === undefined) {
    tail = serialiseTail(commit, state);
    byCommit.set(commit, tail);
  }
  return tail;
}

async function serialiseTail(commit: WasmPredicateInput["commit"], state: unknown): Promise<Uint8Array> {
  const c = sortKeysDeep(commit) as WasmPredicateInput["commit"];
  const ordered = { hash: c.hash, parent: c.parent, data: c.data, labels: c.labels, signers: c.signers };
  const chunks: Uint8Array[] = [];
  let pending = `,"commit":${JSON.stringify({ ...ordered, timestamp: c.timestamp })}`;
  if (state === null || typeof state !== "object" || Array.isArray(state)) {
    pending += `,"state":${JSON.stringify(sortKeysDeep(state))}}`;
    return concat([encoder.encode(pending)]);
  }
  pending += `,"state":{`;
  let first = true;
  for (const key of sortedKeys(state as Record<string, unknown>)) {
    const value = (state as Record<string, unknown>)[key];
    if (value === undefined) continue;
    pending += `${first ? "" : ","}${JSON.stringify(key)}:${JSON.stringify(sortKeysDeep(value))}`;
    first = false;
    if (pending.length >= SLICE_CHARS) {
      chunks.push(encoder.encode(pending));
      pending = "";
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  chunks.push(encoder.encode(`${pending}}}`));
  return concat(chunks);
}

/**
 * The keys in the order an object built by inserting them sorted lists them, as sortKeysDeep
 * builds it: integer-like keys first, in numeric order, then the others sorted.
 */
function sortedKeys(object: Record<string, unknown>): string[] {
  const ordered: Record<string, true> = {};
  for (const key of Object.keys(object).sort()) ordered[key] = true;
  return Object.keys(ordered);
}

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  let length = 0;
  for (const c of chunks) length += c.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
