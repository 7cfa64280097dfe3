import { ParseError } from "../lang/parser.js";
import { CONTRACT_ID_PATTERN, MODEL_PATH, type Operation } from "./Commit.js";
import { ContractError } from "./ContractError.js";
import { isLowerHex, typeName } from "./hex.js";
import { parseIsoDate, parseIsoDateTime } from "./isoDate.js";
import { DEFAULT_LIMITS, type Limits } from "./limits.js";
import { parseModelMemo } from "./modelParseMemo.js";
import { parseRuleMemo } from "./ruleParseMemo.js";
import { wasmValueOutcome } from "./wasmValueMemo.js";
import { assertStrongKey } from "./weakPublicKey.js";

/** State path extensions of docs/api.md, in the order the reference lists them. */
export const KNOWN_EXTENSIONS = [
  ".bool",
  ".text",
  ".date",
  ".datetime",
  ".json",
  ".md",
  ".id",
  ".wasm",
  ".modality",
] as const;
export type Extension = (typeof KNOWN_EXTENSIONS)[number];

export { MODEL_PATH } from "./Commit.js";
/** Prefixes owned by the `model`, `rule` and `repost` methods: a `post` may not write under them. */
export const RESERVED_PREFIXES = ["/model/", "/rules/", "/reposts/"] as const;

// docs/language.md PATH characters, as non-empty segments, so every state path can be named in a predicate.
const PATH_SYNTAX = /^(?:\/[A-Za-z0-9_.-]+)+$/;
const RULE_PATH = /^\/rules\/[A-Za-z0-9_.-]+\.modality$/;
function fail(path: string, message: string, reason: string, extra: Record<string, unknown> = {}): never {
  throw new ContractError("VALIDATION_FAILED", message, { reason, path, ...extra });
}

/** The path's extension if it is a known one (by suffix of the last segment), else null. */
export function pathExtension(path: string): Extension | null {
  const last = path.slice(path.lastIndexOf("/") + 1);
  const dot = last.lastIndexOf(".");
  if (dot <= 0) return null;
  const ext = last.slice(dot);
  return (KNOWN_EXTENSIONS as readonly string[]).includes(ext) ? (ext as Extension) : null;
}

/** Throws unless `path` is absolute, made of non-empty `[A-Za-z0-9_.-]` segments, none `.` or `..`. */
export function checkPathSyntax(path: string): void {
  if (!PATH_SYNTAX.test(path) || path.split("/").some((s) => s === "." || s === "..")) {
    fail(
      path,
      `Cannot accept path "${path}": a state path is "/" followed by segments of letters, digits, "_", "." or "-"`,
      "path_syntax",
    );
  }
}

/** Throws unless `path` is well formed and ends with a known extension; returns the extension. */
export function checkTypedPath(path: string): Extension {
  checkPathSyntax(path);
  const ext = pathExtension(path);
  if (ext === null) {
    fail(
      path,
      `Cannot accept path "${path}": it must end with a known extension: ${KNOWN_EXTENSIONS.join(", ")}`,
      "unknown_extension",
    );
  }
  return ext;
}

/** A weak key at an `.id` path would let anyone sign as that seat: VALIDATION_FAILED `weak_key` naming the path. */
function checkIdKey(path: string, hex: string): void {
  try {
    assertStrongKey(Buffer.from(hex, "hex"), `value for "${path}"`, "VALIDATION_FAILED");
  } catch (err) {
    if (err instanceof ContractError) throw new ContractError(err.code, err.message, { ...err.details, path });
    throw err;
  }
}

/**
 * Throws unless `value` matches the type of `path`'s extension (docs/language.md). `.modality`
 * text must parse as a model or a rule; `.wasm` must be base64 of a module WebAssembly accepts.
 * `stored`: the value is read back from the hub's own store (a trusted replay, whose commit
 * hash is recomputed, so the value is the one checked when its commit was appended); a
 * `.wasm` string is then not checked again (see ShapeContext.stored).
 */
export function checkValueForPath(path: string, value: unknown, limits: Limits = DEFAULT_LIMITS, stored = false): void {
  const ext = checkTypedPath(path);
  const wrong = (expected: string): never =>
    fail(path, `Cannot accept value for "${path}": ${ext} needs ${expected}, got ${describe(value)}`, "value_type", {
      extension: ext,
    });
  switch (ext) {
    case ".id":
      if (!isLowerHex(value, 32)) wrong("64 lower-case hex characters (an ed25519 public key)");
      checkIdKey(path, value as string);
      return;
    case ".text":
    case ".md":
      if (typeof value !== "string") wrong("a string");
      return;
    case ".bool":
      if (typeof value !== "boolean") wrong("true or false");
      return;
    case ".json":
      return;
    case ".date":
      if (typeof value !== "string" || parseIsoDate(value) === null) wrong("a real calendar date YYYY-MM-DD");
      return;
    case ".datetime":
      if (typeof value !== "string" || parseIsoDateTime(value) === null) {
        wrong("an ISO 8601 date-time with a time zone, e.g. 2024-05-01T12:00:00Z");
      }
      return;
    case ".wasm": {
      if (stored && typeof value === "string") return;
      // A big value the hub checked already (on its worker pool, see wasmValueMemo.ts) is a lookup here.
      const outcome = wasmValueOutcome(value);
      if (outcome === "not_base64") wrong("base64 of a WebAssembly module");
      if (outcome === "invalid") {
        fail(path, `Cannot accept value for "${path}": the WebAssembly module does not validate`, "wasm_invalid", {
          extension: ext,
        });
      }
      return;
    }
    case ".modality":
      if (typeof value !== "string") wrong("Modality source text");
      checkModalityText(path, value as string, "any", limits);
      return;
  }
}

/**
 * Throws unless `text` parses as a model (`kind` "model"), a rule ("rule") or either
 * ("any"), within the size limits; the parse error's line and column go in the details.
 */
export function checkModalityText(
  path: string,
  text: string,
  kind: "model" | "rule" | "any",
  limits: Limits = DEFAULT_LIMITS,
): void {
  const max = kind === "rule" ? limits.ruleTextBytes : limits.modelTextBytes;
  const size = Buffer.byteLength(text, "utf8");
  if (size > max) {
    throw new ContractError(
      "PAYLOAD_TOO_LARGE",
      `Cannot accept ${kind === "any" ? "Modality" : kind} text at "${path}": ${size} bytes exceeds the limit of ${max}`,
      {
        reason: "text_too_large",
        path,
        limit: kind === "rule" ? "ruleTextBytes" : "modelTextBytes",
        max,
      },
    );
  }
  const errors: ParseError[] = [];
  // A big model or rule text the hub parsed already (in slices, see modelParseMemo.ts and
  // ruleParseMemo.ts) is a lookup here.
  // For "any", a text over the rule limit can only be a model: the rule parse (not sliced) is
  // not tried on it, so a megabyte that fails as a model cannot hold the event loop for a
  // second parse (docs/security.md).
  const ruleFits = size <= limits.ruleTextBytes;
  const parsers =
    kind === "model"
      ? [parseModelMemo]
      : kind === "rule"
        ? [parseRuleMemo]
        : ruleFits
          ? [parseModelMemo, parseRuleMemo]
          : [parseModelMemo];
  for (const parse of parsers) {
    try {
      parse(text);
      return;
    } catch (err) {
      if (!(err instanceof ParseError)) throw err;
      errors.push(err);
    }
  }
  // For "any", the attempt that got further into the text is the one the author meant.
  const best = errors.reduce((a, b) => (b.line > a.line || (b.line === a.line && b.column > a.column) ? b : a));
  const what =
    kind === "any"
      ? ruleFits
        ? "a model or a rule"
        : `a model (a rule is at most ${limits.ruleTextBytes} bytes)`
      : `a ${kind}`;
  fail(path, `Cannot accept value for "${path}": it must parse as ${what}: ${best.message}`, "modality_parse", {
    line: best.line,
    column: best.column,
    // What the text was parsed as: a text over the rule limit is only tried as a model.
    tried: parsers.map((parse) => (parse === parseRuleMemo ? "rule" : "model")),
  });
}

/**
 * Checks an operation's path and value against its method (docs/language.md): typed
 * post paths outside the reserved prefixes, `/rules/<name>.modality` rules,
 * `/model/default.modality` models, `/reposts/<source_contract_id>/<path>` reposts, and the
 * genesis model and rules. Structure (which fields are present) is validateCommitShape's job.
 */
export function checkOperationPaths(op: Operation, limits: Limits = DEFAULT_LIMITS, stored = false): void {
  const path = op.path;
  switch (op.method) {
    case "post": {
      if (path === undefined) return;
      checkTypedPath(path);
      const reserved = RESERVED_PREFIXES.find((p) => path.startsWith(p));
      if (reserved !== undefined) {
        fail(
          path,
          `Cannot post to "${path}": paths under ${reserved} belong to the ${reserved.slice(1, -1)} method`,
          "reserved_path",
        );
      }
      checkValueForPath(path, op.value, limits, stored);
      return;
    }
    case "rule":
      if (path !== undefined && !RULE_PATH.test(path)) {
        fail(path, `Cannot add rule at "${path}": a rule path must be /rules/<name>.modality`, "rule_path");
      }
      checkSourceValue(path ?? "/rules", op.value, "rule", limits);
      return;
    case "model":
      if (path !== undefined && path !== MODEL_PATH) {
        fail(path, `Cannot set model at "${path}": the model path must be ${MODEL_PATH}`, "model_path");
      }
      checkSourceValue(path ?? MODEL_PATH, op.value, "model", limits);
      return;
    case "repost": {
      if (path === undefined) return;
      const m = /^\/reposts\/([^/]+)(\/.*)$/.exec(path);
      if (!m || !CONTRACT_ID_PATTERN.test(m[1]!)) {
        fail(
          path,
          `Cannot repost to "${path}": a repost path must be /reposts/<source_contract_id>/<path>`,
          "repost_path",
        );
      }
      checkValueForPath(path, op.value, limits, stored);
      return;
    }
    case "genesis": {
      const g = op.value as { model?: unknown; rules?: unknown } | undefined;
      if (typeof g?.model === "string") checkModalityText(MODEL_PATH, g.model, "model", limits);
      if (Array.isArray(g?.rules)) {
        g.rules.forEach((r, i) => {
          if (typeof r === "string") checkModalityText(`/rules/${i}`, r, "rule", limits);
        });
      }
      return;
    }
    default:
      return;
  }
}

function checkSourceValue(path: string, value: unknown, kind: "model" | "rule", limits: Limits): void {
  if (typeof value !== "string") {
    fail(
      path,
      `Cannot accept ${kind} at "${path}": its value must be Modality source text, got ${describe(value)}`,
      "value_type",
      {
        extension: ".modality",
      },
    );
  }
  checkModalityText(path, value as string, kind, limits);
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  return typeName(value);
}
