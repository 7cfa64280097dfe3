/**
 * A least-recently-used cache of compilations, bounded by entries and by a weight in bytes
 * the caller gives each (compilePredicate: compiledWeight). Counting entries alone was not
 * enough: a push may carry a module of megabytes, or of many thousand functions, every one
 * of which is compiled, so 128 such entries could hold gigabytes.
 * A Map iterates in insertion order, so re-inserting on a hit keeps the oldest entry first.
 */
export class ModuleCache<T> {
  readonly #entries = new Map<string, { value: Promise<T>; bytes: number }>();
  #bytes = 0;

  constructor(
    readonly maxEntries: number,
    readonly maxBytes: number,
  ) {}

  /**
   * The cached compilation for `key`, else `make()`'s, remembered as costing `bytes`. A
   * rejected compilation is forgotten (a lost thread says nothing about the module), so the
   * next call tries again; a compilation that resolves to a refusal stays cached.
   */
  get(key: string, bytes: number, make: () => Promise<T>): Promise<T> {
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit.value;
    }
    const entry = { value: make(), bytes };
    this.#entries.set(key, entry);
    this.#bytes += bytes;
    entry.value.catch(() => {
      if (this.#entries.get(key) === entry) this.#drop(key);
    });
    // The newest entry stays even when it alone is over the byte bound: it is about to be used.
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= 1 || (this.#entries.size <= this.maxEntries && this.#bytes <= this.maxBytes)) break;
      this.#drop(oldest);
    }
    return entry.value;
  }

  /** Entries held and the module bytes they account for. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.#entries.size, bytes: this.#bytes };
  }

  #drop(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}
