/**
 * The standard predicates of docs/language.md, evaluated against a commit and the contract
 * state before it. Each returns `{valid, gas_used, errors}`; a predicate whose required state
 * is missing is false and says which path was missing.
 */
import { createHash } from "node:crypto";
import type { Attestation, Operation } from "./Commit.js";
import { canonicalize } from "./canonicalJson.js";
import { canonicalTextLongerThan } from "./canonicalTextLongerThan.js";
import type { PredicateResult } from "./EngineContext.js";
import { isLowerHex } from "./hex.js";
import { parseIsoDate, parseIsoDateTime } from "./isoDate.js";

/** Fixed gas reported by built-in predicates (they are not metered). */
export const BUILTIN_GAS = 1;

/** What a predicate may look at. */
export interface PredicateInput {
  /** Contract state before the commit. */
  data: ReadonlyMap<string, unknown>;
  ops: readonly Operation[];
  /** Verified signer keys (lower-case hex). */
  signers: ReadonlySet<string>;
  /** Attestations whose signatures verified. */
  attestations: readonly Attestation[];
  /** Hub receipt time, seconds. */
  timestamp: number;
}

type Builtin = (args: readonly string[], input: PredicateInput) => PredicateResult;

const ok = (valid: boolean, errors: string[] = []): PredicateResult => ({ valid, gas_used: BUILTIN_GAS, errors });

/** True when `path` is `dir` or lies under it on a `/` boundary. */
export function pathCovers(dir: string, path: string): boolean {
  const base = dir.endsWith("/") ? dir.slice(0, -1) : dir;
  return path === base || path.startsWith(`${base}/`);
}

/** The keys a directory argument names: `.id` values under it, or a `.json` array of hex keys at it. */
export function keysUnder(data: ReadonlyMap<string, unknown>, dir: string): string[] {
  if (dir.endsWith(".json")) {
    const list = data.get(dir);
    return Array.isArray(list) ? [...new Set(list.filter((k): k is string => isLowerHex(k, 32)))] : [];
  }
  const keys = new Set<string>();
  for (const [path, value] of data) {
    if (path.endsWith(".id") && pathCovers(dir, path) && isLowerHex(value, 32)) keys.add(value);
  }
  return [...keys];
}

/*
 * The `.id` entries of the state before a commit, listed once per decision (per predicate
 * input): a directory predicate otherwise scans the whole state, once per transition naming
 * another directory, and a wide model times a large state made that seconds for one commit.
 * Keyed by the input object, which each decision builds afresh around the state it judges.
 */
const ID_ENTRIES = new WeakMap<PredicateInput, ReadonlyArray<readonly [string, string]>>();

/** keysUnder for a predicate's input, over its memoized `.id` entries. */
function keysUnderInput(input: PredicateInput, dir: string): string[] {
  if (dir.endsWith(".json")) return keysUnder(input.data, dir);
  let entries = ID_ENTRIES.get(input);
  if (entries === undefined) {
    const list: Array<readonly [string, string]> = [];
    for (const [path, value] of input.data) {
      if (path.endsWith(".id") && isLowerHex(value, 32)) list.push([path, value]);
    }
    entries = list;
    ID_ENTRIES.set(input, entries);
  }
  const keys = new Set<string>();
  for (const [path, key] of entries) if (pathCovers(dir, path)) keys.add(key);
  return [...keys];
}

function keyAt(data: ReadonlyMap<string, unknown>, path: string): string | null {
  const v = data.get(path);
  return isLowerHex(v, 32) ? v : null;
}

/** Seconds of the `.datetime` or `.date` (midnight UTC) value at `path`, or null. */
function instantAt(data: ReadonlyMap<string, unknown>, path: string): number | null {
  const v = data.get(path);
  if (typeof v !== "string") return null;
  const ms = path.endsWith(".date") ? parseIsoDate(v) : parseIsoDateTime(v);
  return ms === null ? null : ms / 1000;
}

/** Text form used to compare a JSON value with a predicate argument: strings as they are, others as JCS. */
function asText(value: unknown): string {
  return typeof value === "string" ? value : canonicalize(value);
}

/*
 * What a commit's values hash and print to, computed once per commit. A model may guard
 * thousands of transitions each with another `hash_matches` path, `post_to` value or
 * `oracle_attests` value, and every transition leaving the current states is judged: without
 * these memos one commit with a megabyte-sized value hashed (or canonicalized) it once per
 * transition, seconds of work for one request. Operations and attestations are never changed
 * once decoded, so a value's text and the digests of a commit's operations can be kept with them.
 */
const TEXTS = new WeakMap<object, string>();
const DIGESTS = new WeakMap<readonly Operation[], ReadonlySet<string>>();

/** asText of an operation's or attestation's value, once per object. */
function valueText(holder: { value?: unknown }): string {
  let text = TEXTS.get(holder);
  if (text === undefined) {
    text = asText(holder.value);
    TEXTS.set(holder, text);
  }
  return text;
}

/**
 * Whether asText(holder.value) === expected, without writing the text of a value that cannot
 * be that long. A string is its own text; another value's canonical text is at least as long
 * as canonicalTextLongerThan counts, and a count past `expected.length` settles it unequal
 * after about `expected.length` steps. Only a value no longer than the rule's own argument
 * (which lies in a model's or rule's text) is then canonicalized, once per commit as before.
 * A commit's attestation may hold megabytes (an object of 400,000 members took 440-490 ms to
 * canonicalize in one piece) while the values rules name are short: judging no longer costs
 * what the value weighs.
 */
function valueTextIs(holder: { value?: unknown }, expected: string): boolean {
  const { value } = holder;
  if (typeof value === "string") return value.length === expected.length && value === expected;
  const text = TEXTS.get(holder);
  if (text !== undefined) return text === expected;
  if (canonicalTextLongerThan(value, expected.length)) return false;
  return valueText(holder) === expected;
}

/** Lower-case SHA-256 hex of every string value posted by `ops` (actions excluded), once per commit. */
function valueDigests(ops: readonly Operation[]): ReadonlySet<string> {
  let digests = DIGESTS.get(ops);
  if (digests === undefined) {
    const set = new Set<string>();
    for (const op of ops) {
      if (op.method !== "action" && typeof op.value === "string")
        set.add(createHash("sha256").update(op.value, "utf8").digest("hex"));
    }
    digests = set;
    DIGESTS.set(ops, digests);
  }
  return digests;
}

function writtenPaths(ops: readonly Operation[]): string[] {
  return ops.flatMap((op) => (op.path !== undefined && op.method !== "action" ? [op.path] : []));
}

const arity =
  (n: number, name: string, fn: Builtin): Builtin =>
  (args, input) =>
    args.length === n ? fn(args, input) : ok(false, [`${name} takes ${n} argument(s), got ${args.length}`]);

const BUILTINS: Readonly<Record<string, Builtin>> = {
  signed_by: arity(1, "signed_by", ([path], { data, signers }) => {
    const key = keyAt(data, path!);
    if (key === null) return ok(false, [`no key at ${path}`]);
    return ok(signers.has(key));
  }),
  threshold: arity(2, "threshold", ([n, dir], input) => {
    // Decimal digits only: Number() would also read "" as 0 (no signature needed), "0x2" and "1e1".
    const need = /^[0-9]{1,15}$/.test(n!) ? Number(n) : Number.NaN;
    if (!Number.isSafeInteger(need)) return ok(false, [`threshold count "${n}" is not an integer`]);
    const keys = keysUnderInput(input, dir!);
    if (keys.length === 0) return ok(false, [`no keys under ${dir}`]);
    const have = keys.filter((k) => input.signers.has(k)).length;
    return ok(have >= need, have >= need ? [] : [`${have} of ${need} required signatures from ${dir}`]);
  }),
  any_signed: arity(1, "any_signed", ([dir], input) => {
    const keys = keysUnderInput(input, dir!);
    if (keys.length === 0) return ok(false, [`no keys under ${dir}`]);
    return ok(keys.some((k) => input.signers.has(k)));
  }),
  all_signed: arity(1, "all_signed", ([dir], input) => {
    const keys = keysUnderInput(input, dir!);
    if (keys.length === 0) return ok(false, [`no keys under ${dir}`]);
    return ok(keys.every((k) => input.signers.has(k)));
  }),
  oracle_attests: arity(3, "oracle_attests", ([path, claim, value], { data, attestations }) => {
    const key = keyAt(data, path!);
    if (key === null) return ok(false, [`no oracle key at ${path}`]);
    const oracle = `ed25519:${key}`;
    return ok(attestations.some((a) => a.oracle === oracle && a.claim === claim && valueTextIs(a, value!)));
  }),
  before: arity(1, "before", ([path], { data, timestamp }) => {
    const at = instantAt(data, path!);
    return at === null ? ok(false, [`no date or datetime at ${path}`]) : ok(timestamp < at);
  }),
  after: arity(1, "after", ([path], { data, timestamp }) => {
    const at = instantAt(data, path!);
    return at === null ? ok(false, [`no date or datetime at ${path}`]) : ok(timestamp >= at);
  }),
  hash_matches: arity(1, "hash_matches", ([path], { data, ops }) => {
    const expected = data.get(path!);
    if (typeof expected !== "string") return ok(false, [`no hash at ${path}`]);
    return ok(valueDigests(ops).has(expected.toLowerCase()));
  }),
  post_to: arity(2, "post_to", ([path, value], { ops }) =>
    ok(ops.some((op) => op.method === "post" && op.path === path && valueTextIs(op, value!))),
  ),
  modifies: arity(1, "modifies", ([dir], { ops }) => ok(writtenPaths(ops).some((p) => pathCovers(dir!, p)))),
  adds_rule: (_args, { ops }) => ok(ops.some((op) => op.method === "rule")),
};

/** Evaluates a built-in predicate by canonical name, or returns null when `name` is not built in. */
/** Whether `name` is a standard predicate (anything else is a custom WASM one). */
export function isBuiltinPredicate(name: string): boolean {
  return Object.hasOwn(BUILTINS, name);
}

export function evaluateBuiltin(name: string, args: readonly string[], input: PredicateInput): PredicateResult | null {
  // Own keys only: a custom predicate may be called `toString` or `__proto__`.
  return isBuiltinPredicate(name) ? BUILTINS[name]!(args, input) : null;
}
