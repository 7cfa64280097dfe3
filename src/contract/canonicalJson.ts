import { ContractError } from "./ContractError.js";
import { DEFAULT_LIMITS } from "./limits.js";
import { countJsonMembers, duplicateKeyError, scanJsonText } from "./scanJsonText.js";

/** Options of `canonicalize`. */
export interface CanonicalOptions {
  /** Maximum nesting of arrays and objects (docs/security.md: 64). */
  maxDepth?: number;
}

/** True when `s` holds a lone surrogate half (isWellFormed: native, a fraction of a /\p{Cs}/u test). */
export const hasLoneSurrogate = (s: string): boolean => !(s as string & { isWellFormed(): boolean }).isWellFormed();

/**
 * RFC 8785 (JCS) text of a JSON value: object keys sorted by UTF-16 code units, numbers in
 * ECMAScript form, strings escaped as JSON.stringify does. Rejects (INVALID_REQUEST) what
 * I-JSON or docs/protocol.md forbid: integers beyond ±(2^53−1), non-finite numbers, lone
 * surrogates, nesting deeper than the limit, and anything that is not plain JSON data.
 */
export function canonicalize(value: unknown, options: CanonicalOptions = {}): string {
  const maxDepth = options.maxDepth ?? DEFAULT_LIMITS.jsonDepth;
  try {
    return write(value, 0, maxDepth, null);
  } catch (err) {
    // The fast pass builds no JSON pointers; redo the walk with them to say where it failed.
    if (err instanceof ContractError) write(value, 0, maxDepth, "");
    throw err;
  }
}

/** UTF-8 bytes of `canonicalize(value)`. */
export function canonicalBytes(value: unknown, options: CanonicalOptions = {}): Buffer {
  return Buffer.from(canonicalize(value, options), "utf8");
}

/** `at` is the JSON pointer of `value`, or null on the fast pass (errors then say "/"). */
function write(value: unknown, depth: number, maxDepth: number, at: string | null): string {
  switch (typeof value) {
    case "string":
      if (hasLoneSurrogate(value)) throw loneSurrogate(at);
      return JSON.stringify(value);
    case "number":
      checkNumber(value, at);
      // ECMAScript Number::toString is JCS's number form; JSON.stringify also maps -0 to 0.
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "object": {
      if (value === null) return "null";
      if (depth >= maxDepth) throw tooDeep(maxDepth, at);
      if (Array.isArray(value)) {
        let out = "[";
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ",";
          const child = at === null ? null : `${at}/${i}`;
          if (!(i in value)) throw nonPlain("a sparse array", child);
          out += write(value[i], depth + 1, maxDepth, child);
        }
        return `${out}]`;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw nonPlain(`an instance of ${(value as object).constructor?.name ?? "a class"}`, at);
      }
      // Default sort compares UTF-16 code units, which is exactly RFC 8785 §3.2.3.
      const keys = Object.keys(value).sort();
      let out = "{";
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        if (hasLoneSurrogate(key)) throw loneSurrogate(at);
        if (i > 0) out += ",";
        const child = at === null ? null : `${at}/${escapePointer(key)}`;
        out += `${JSON.stringify(key)}:${write((value as Record<string, unknown>)[key], depth + 1, maxDepth, child)}`;
      }
      return `${out}}`;
    }
    default:
      throw nonPlain(value === undefined ? "undefined" : `a ${typeof value}`, at);
  }
}

/** Throws unless `n` is finite and, when integral, within ±(2^53−1). */
export function checkNumber(n: number, at: string | null): void {
  if (!Number.isFinite(n)) {
    throw new ContractError("INVALID_REQUEST", `Cannot canonicalize JSON: number ${where(at)} is not finite`, {
      reason: "non_finite_number",
      pointer: at ?? "",
    });
  }
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) throw integerOutOfRange(at);
}

function integerOutOfRange(at: string | null): ContractError {
  return new ContractError(
    "INVALID_REQUEST",
    `Cannot accept JSON: integer ${where(at)} is outside ±(2^53−1) and would lose precision`,
    { reason: "integer_out_of_range", pointer: at ?? "" },
  );
}

export function tooDeep(maxDepth: number, at: string | null): ContractError {
  return new ContractError("INVALID_REQUEST", `Cannot accept JSON: nesting deeper than ${maxDepth} ${where(at)}`, {
    reason: "json_too_deep",
    limit: maxDepth,
    pointer: at ?? "",
  });
}

export function loneSurrogate(at: string | null): ContractError {
  return new ContractError("INVALID_REQUEST", `Cannot accept JSON: string ${where(at)} holds an unpaired surrogate`, {
    reason: "lone_surrogate",
    pointer: at ?? "",
  });
}

export function nonPlain(what: string, at: string | null): ContractError {
  return new ContractError("INVALID_REQUEST", `Cannot canonicalize JSON: ${what} ${where(at)} is not JSON data`, {
    reason: "non_json_value",
    pointer: at ?? "",
  });
}

/** Where in the value an error is, for messages. */
function where(at: string | null): string {
  return at ? `at "${at}"` : "at the top level";
}

/** RFC 6901 escaping of one reference token. */
export function escapePointer(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** Limits of `safeJsonParse`. */
export interface ParseLimits {
  /** Maximum nesting of arrays and objects (default 64). */
  maxDepth?: number;
  /** Maximum text length in UTF-16 code units; longer is PAYLOAD_TOO_LARGE. */
  maxLength?: number;
  /**
   * Maximum arrays and objects in the text (parseJsonInSlices only; a text of 64 KiB cannot
   * hold many); more is PAYLOAD_TOO_LARGE `json_too_many_containers`.
   */
  maxContainers?: number;
}

/**
 * JSON.parse with the hub's hardening: nesting beyond the limit is refused before parsing
 * (so deep input cannot exhaust the stack), a duplicate member name at any depth (which
 * JSON.parse would silently resolve, last wins) is `duplicate_key`, and integers beyond
 * ±(2^53−1) (which JSON.parse would silently round), lone surrogates and `__proto__` keys
 * are refused after it.
 * `__proto__` is refused outright rather than kept as an own property, because any later
 * spread or merge of such an object would set a prototype. Errors are INVALID_REQUEST with
 * a `reason` and, where known, the text `position` or the JSON `pointer`.
 */
export function safeJsonParse(text: string, limits: ParseLimits = {}): unknown {
  const maxDepth = limits.maxDepth ?? DEFAULT_LIMITS.jsonDepth;
  if (limits.maxLength !== undefined && text.length > limits.maxLength) {
    throw new ContractError(
      "PAYLOAD_TOO_LARGE",
      `Cannot parse JSON: text is longer than the limit of ${limits.maxLength}`,
      {
        reason: "json_too_long",
        limit: limits.maxLength,
      },
    );
  }
  const members = countJsonMembers(text, maxDepth);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const match = /position (\d+)/.exec(message);
    throw new ContractError(
      "INVALID_REQUEST",
      `Cannot parse JSON: ${message}`,
      match ? { reason: "json_syntax", position: Number(match[1]) } : { reason: "json_syntax" },
    );
  }
  // Reported only after the parse (text that is not JSON is a syntax error first), and
  // before what checkParsed finds.
  const keys = { count: 0 };
  try {
    checkParsed(value, null, keys);
  } catch (err) {
    throwDuplicate(text, maxDepth);
    if (err instanceof ContractError) checkParsed(value, "", keys);
    throw err;
  }
  if (keys.count !== members) throwDuplicate(text, maxDepth);
  return value;
}

/** Throws duplicate_key naming the first duplicate member of `text`, if it has one. */
function throwDuplicate(text: string, maxDepth: number): void {
  const duplicate = scanJsonText(text, maxDepth);
  if (duplicate !== null) throw duplicateKeyError(duplicate);
}

/** The refusal of a `__proto__` member in the object at `at`. */
export function forbiddenKey(at: string | null): ContractError {
  return new ContractError("INVALID_REQUEST", `Cannot accept JSON: key "__proto__" ${where(at)} is not allowed`, {
    reason: "forbidden_key",
    pointer: at ?? "",
  });
}

/**
 * Refuses out-of-range numbers, lone surrogates and `__proto__`; adds the objects' own keys
 * to `keys.count`. `at` is the value's JSON pointer, or null on the fast pass.
 */
export function checkParsed(value: unknown, at: string | null, keys: { count: number }): void {
  if (typeof value === "number") {
    // 1e400 parses to Infinity: out of range just like a too-large integer.
    if (!Number.isSafeInteger(value) && (Number.isInteger(value) || !Number.isFinite(value))) {
      throw integerOutOfRange(at);
    }
  } else if (typeof value === "string") {
    if (hasLoneSurrogate(value)) throw loneSurrogate(at);
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) checkParsed(value[i], at === null ? null : `${at}/${i}`, keys);
  } else if (value !== null && typeof value === "object") {
    const names = Object.keys(value);
    keys.count += names.length;
    for (const key of names) {
      if (key === "__proto__") throw forbiddenKey(at);
      if (hasLoneSurrogate(key)) throw loneSurrogate(at);
      checkParsed((value as Record<string, unknown>)[key], at === null ? null : `${at}/${escapePointer(key)}`, keys);
    }
  }
}
