import { pathExtension } from "../../contract/pathTypes.js";
import { WASM_MEMO_MIN_CHARS } from "../../contract/wasmValueMemo.js";

/** How many operations of one commit are looked at (the shape check refuses more anyway). */
const OPS_LOOKED_AT = 1024;

/**
 * The `.wasm` values of a commit as received (not validated yet) that its shape check will
 * validate as WebAssembly modules and that are big enough to validate on the worker pool
 * first: the values of `post` and `repost` operations at `.wasm` paths (a genesis commit's
 * later operations included). Values under WASM_MEMO_MIN_CHARS are validated inline.
 */
export function bigWasmValues(raw: unknown): string[] {
  const data = (raw as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return [];
  const values: string[] = [];
  for (const op of data.slice(0, OPS_LOOKED_AT)) {
    if (op === null || typeof op !== "object") continue;
    const { method, path, value } = op as { method?: unknown; path?: unknown; value?: unknown };
    if (method !== "post" && method !== "repost") continue;
    if (typeof path !== "string" || pathExtension(path) !== ".wasm") continue;
    if (typeof value === "string" && value.length >= WASM_MEMO_MIN_CHARS) values.push(value);
  }
  return values;
}
