/**
 * A store whose reads are counted: every method still answers from the real store, and the
 * rows each answer holds are added up (an array's length, both lists of an assets page or of
 * a contract's books, 1 for a record, 0 for none). Tests use it to show a route or the asset
 * ledger reads the rows it names, not a contract's whole books.
 */
import type { Store } from "../../src/store/Store.js";

/** Rows a store answer holds. */
export function rowsOf(result: unknown): number {
  if (result === null || result === undefined) return 0;
  if (Array.isArray(result)) return result.length;
  if (typeof result === "object" && "assets" in result && "balances" in result) {
    const r = result as { assets: unknown[]; balances: unknown[] };
    return r.assets.length + r.balances.length;
  }
  return typeof result === "object" ? 1 : 0;
}

/** `store` with every answer's rows counted. */
export function counted(store: Store): { store: Store; rows: () => number } {
  let rows = 0;
  const proxy = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        const out = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        rows += rowsOf(out);
        return out;
      };
    },
  });
  return { store: proxy, rows: () => rows };
}
