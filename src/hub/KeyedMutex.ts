/**
 * Per-key async serialization: `run(key, fn)` starts `fn` only after every earlier `fn` of
 * the same key settled. The hub runs validation and the head update of one contract under
 * it, so one process never forks a contract (the store's head check covers other processes).
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `fn` exclusively for `key`; other keys proceed concurrently. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      // Drop the entry when nobody queued behind us, so idle keys do not accumulate.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Number of keys with a holder or waiters (for tests). */
  get size(): number {
    return this.tails.size;
  }
}
