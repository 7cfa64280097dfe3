import { MEMO_MIN_CHARS } from "../../contract/modelParseMemo.js";

/** How many operations of one commit are looked at (the shape check refuses more anyway). */
const OPS_LOOKED_AT = 1024;

/**
 * The texts of a commit as received (not validated yet) that its shape check will parse as
 * models and that are big enough to parse in slices first: the genesis model, a model
 * operation's value, and `.modality` values. Texts longer than `maxChars` are left out:
 * the size check refuses them before any parse.
 */
export function bigModelTexts(raw: unknown, maxChars: number): string[] {
  const data = (raw as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return [];
  const texts: string[] = [];
  for (const op of data.slice(0, OPS_LOOKED_AT)) {
    if (op === null || typeof op !== "object") continue;
    const { method, path, value } = op as { method?: unknown; path?: unknown; value?: unknown };
    let text: unknown;
    if (method === "genesis") text = (value as { model?: unknown } | null)?.model;
    else if (method === "model") text = value;
    else if ((method === "post" || method === "repost") && typeof path === "string" && path.endsWith(".modality"))
      text = value;
    if (typeof text === "string" && text.length >= MEMO_MIN_CHARS && text.length <= maxChars) texts.push(text);
  }
  return texts;
}
