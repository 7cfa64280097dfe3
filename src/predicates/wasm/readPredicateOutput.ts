/** A predicate's decoded answer, or why its bytes are not one. */
export type PredicateOutput = { ok: true; valid: boolean; errors: string[] } | { ok: false; error: string };

/** Decodes the bytes a predicate returned: UTF-8 JSON `{valid: boolean, errors?: string[]}`. */
export function readPredicateOutput(bytes: Uint8Array): PredicateOutput {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, error: "result is not valid UTF-8" };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: "result is not JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { ok: false, error: "result is not a JSON object" };
  const { valid, errors } = value as { valid?: unknown; errors?: unknown };
  if (typeof valid !== "boolean") return { ok: false, error: "result has no boolean valid" };
  if (errors === undefined) return { ok: true, valid, errors: [] };
  if (!Array.isArray(errors) || !errors.every((e) => typeof e === "string"))
    return { ok: false, error: "result errors is not an array of strings" };
  return { ok: true, valid, errors };
}
