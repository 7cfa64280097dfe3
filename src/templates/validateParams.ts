import { isContractError } from "../contract/ContractError.js";
import { parseIdentity } from "../contract/hex.js";
import { parseIsoDate, parseIsoDateTime } from "../contract/isoDate.js";
import { ownKeys } from "../contract/memberNames.js";
import { keyParamError, paramError } from "./paramError.js";
import type { ParamValues, TemplateDefinition, TemplateParam } from "./Template.js";

const MAX_TEXT = 4096;
const INTEGER_TEXT = /^-?[0-9]{1,16}$/;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * A key as plain lower-case hex; accepts `ed25519:<hex>` or hex. parseIdentity refuses weak
 * keys: that refusal keeps its reason (`weak_key`, as wherever a key enters), any other is
 * `param_invalid`.
 */
function pubkey(param: string, raw: unknown): string {
  try {
    return parseIdentity(raw, param).toString("hex");
  } catch (err) {
    if (isContractError(err)) throw keyParamError(param, err);
    throw err;
  }
}

function integer(p: TemplateParam, raw: unknown): number {
  const n = typeof raw === "string" && INTEGER_TEXT.test(raw) ? Number(raw) : raw;
  if (typeof n !== "number" || !Number.isSafeInteger(n)) {
    throw paramError(p.name, "param_invalid", `expected an integer, got ${JSON.stringify(raw)?.slice(0, 40)}`);
  }
  if ((p.min !== undefined && n < p.min) || (p.max !== undefined && n > p.max)) {
    throw paramError(p.name, "param_out_of_range", `${n} is outside ${p.min ?? "-∞"}..${p.max ?? "∞"}`);
  }
  return n;
}

function pubkeys(p: TemplateParam, raw: unknown): string[] {
  // The command line passes lists as comma-separated text.
  const list = typeof raw === "string" ? raw.split(",").map((s) => s.trim()) : raw;
  if (!Array.isArray(list)) throw paramError(p.name, "param_invalid", "expected a list of public keys");
  if ((p.min !== undefined && list.length < p.min) || (p.max !== undefined && list.length > p.max)) {
    throw paramError(p.name, "param_out_of_range", `expected ${p.min ?? 0}..${p.max ?? "∞"} keys, got ${list.length}`);
  }
  return list.map((k) => pubkey(p.name, k));
}

function text(p: TemplateParam, raw: unknown, parse?: (s: string) => number | null): string {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > MAX_TEXT) {
    throw paramError(p.name, "param_invalid", `expected a non-empty string of at most ${MAX_TEXT} characters`);
  }
  if (parse !== undefined && parse(raw) === null) {
    throw paramError(p.name, "param_invalid", `${JSON.stringify(raw.slice(0, 40))} is not a valid ISO 8601 ${p.type}`);
  }
  return raw;
}

function convert(p: TemplateParam, raw: unknown): string | number | string[] {
  switch (p.type) {
    case "pubkey":
      return pubkey(p.name, raw);
    case "pubkeys":
      return pubkeys(p, raw);
    case "integer":
      return integer(p, raw);
    case "date":
      return text(p, raw, parseIsoDate);
    case "datetime":
      return text(p, raw, parseIsoDateTime);
    case "text":
      return text(p, raw);
  }
}

/**
 * Validates template parameters: unknown names, missing required ones and malformed values
 * are INVALID_REQUEST with `details.param`; defaults fill omitted optional ones; every key
 * (across all key parameters) must be distinct, since one key in two roles voids the rules
 * that protect one party from the other.
 */
export function validateParams(def: TemplateDefinition, raw: unknown): ParamValues {
  const given = raw === undefined || raw === null ? {} : raw;
  if (!isPlainObject(given)) throw paramError("params", "params_not_object", "params must be an object");
  // The names the sliced parser remembered, when it did: Object.keys lists a wide object in one piece.
  for (const name of ownKeys(given)) {
    if (!def.params.some((p) => p.name === name)) {
      throw paramError(name, "param_unknown", `template ${def.id} has no such parameter`);
    }
  }
  const values: ParamValues = {};
  const seen = new Map<string, string>();
  for (const p of def.params) {
    const value = given[p.name];
    if (value === undefined || value === null) {
      if (p.required) throw paramError(p.name, "param_missing", `required by template ${def.id}`);
      if (p.default !== undefined) values[p.name] = convert(p, p.default);
      continue;
    }
    const v = convert(p, value);
    for (const key of p.type === "pubkey" ? [v as string] : p.type === "pubkeys" ? (v as string[]) : []) {
      const other = seen.get(key);
      if (other !== undefined)
        throw paramError(p.name, "param_duplicate_key", `the same key is already given for ${other}`);
      seen.set(key, p.name);
    }
    values[p.name] = v;
  }
  def.validate?.(values);
  return values;
}
