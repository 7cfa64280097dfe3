/**
 * The standard predicates of docs/language.md, evaluated against a commit and the contract
 * state before it. Each returns `{valid, gas_used, errors}`; a predicate whose required state
 * is missing is false and says which path was missing.
 */
import { createHash } from "node:crypto";
import type { Attestation, Operation } from "./Commit.js";
import { canonicalize } from "./canonicalJson.js";
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
  threshold: arity(2, "threshold", ([n, dir], { data, signers }) => {
    // Decimal digits only: Number() would also read "" as 0 (no signature needed), "0x2" and "1e1".
    const need = /^[0-9]{1,15}$/.test(n!) ? Number(n) : Number.NaN;
    if (!Number.isSafeInteger(need)) return ok(false, [`threshold count "${n}" is not an integer`]);
    const keys = keysUnder(data, dir!);
    if (keys.length === 0) return ok(false, [`no keys under ${dir}`]);
    const have = keys.filter((k) => signers.has(k)).length;
    return ok(have >= need, have >= need ? [] : [`${have} of ${need} required signatures from ${dir}`]);
  }),
  any_signed: arity(1, "any_signed", ([dir], { data, signers }) => {
    const keys = keysUnder(data, dir!);
    if (keys.length === 0) return ok(false, [`no keys under ${dir}`]);
    return ok(keys.some((k) => signers.has(k)));
  }),
  all_signed: arity(1, "all_signed", ([dir], { data, signers }) => {
    const keys = keysUnder(data, dir!);
    if (keys.length === 0) return ok(false, [`no keys under ${dir}`]);
    return ok(keys.every((k) => signers.has(k)));
  }),
  oracle_attests: arity(3, "oracle_attests", ([path, claim, value], { data, attestations }) => {
    const key = keyAt(data, path!);
    if (key === null) return ok(false, [`no oracle key at ${path}`]);
    const oracle = `ed25519:${key}`;
    return ok(attestations.some((a) => a.oracle === oracle && a.claim === claim && asText(a.value) === value));
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
    const want = expected.toLowerCase();
    return ok(
      ops.some(
        (op) =>
          op.method !== "action" &&
          typeof op.value === "string" &&
          createHash("sha256").update(op.value, "utf8").digest("hex") === want,
      ),
    );
  }),
  post_to: arity(2, "post_to", ([path, value], { ops }) =>
    ok(ops.some((op) => op.method === "post" && op.path === path && asText(op.value) === value)),
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
