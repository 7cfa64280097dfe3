/**
 * Seeded randomness for the reliability harnesses (anchors §B lesson 6: every randomized test
 * prints its seed and can replay it). `RELIABILITY_SEED=<n>` replays a run; otherwise a fresh
 * seed is drawn. The schedule (kill delays, op mix, keys) follows from the seed; the exact
 * moment a SIGKILL lands relative to the hub's I/O cannot be replayed, only its delay.
 */
import { randomInt } from "node:crypto";

/** True for the long form (`RELIABILITY=long`). */
export const LONG = process.env.RELIABILITY === "long";

/** The seed of harness `name` (printed with the command that replays it). */
export function harnessSeed(name: string): number {
  const given = process.env.RELIABILITY_SEED;
  const seed = given === undefined ? randomInt(2 ** 31) : Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`RELIABILITY_SEED must be an integer, got ${given}`);
  const form = LONG ? "RELIABILITY=long " : "";
  console.log(`[${name}] seed ${seed} (replay: ${form}RELIABILITY_SEED=${seed} npm run test:reliability)`);
  return seed;
}

/** sfc32: small, fast, good enough for schedules; `fork` gives each async loop its own stream. */
export class Rng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number) {
    this.#a = 0x9e3779b9;
    this.#b = 0x243f6a88;
    this.#c = 0xb7e15162;
    this.#d = seed >>> 0;
    for (let i = 0; i < 15; i++) this.next();
  }

  /** A float in [0, 1). */
  next(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** `n` pseudo-random bytes (e.g. a key seed). */
  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = Math.floor(this.next() * 256);
    return out;
  }

  /** An independent stream derived from this one (one per writer loop, so their interleaving does not matter). */
  fork(): Rng {
    return new Rng(Math.floor(this.next() * 2 ** 32));
  }
}

/** p-th percentile (0..100) of `values` (nearest rank); 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
