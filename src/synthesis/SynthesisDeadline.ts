import { performance } from "node:perf_hooks";

/**
 * The one time limit of a synthesis request (HUB_SYNTHESIS_TIMEOUT_MS): every provider call,
 * retry and repair round of the request shares it, so however the provider fails the request
 * holds its connection for about `ms`, not a multiple of the per-call timeout. Monotonic, so a
 * change of the wall clock cannot stretch or cut it.
 */
export class SynthesisDeadline {
  readonly #at: number;

  constructor(readonly ms: number) {
    this.#at = performance.now() + ms;
  }

  /** Milliseconds left before the deadline (0 or less once it has passed). */
  left(): number {
    return this.#at - performance.now();
  }
}
