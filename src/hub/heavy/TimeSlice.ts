// The shared slice lives in src/lib, where the store (which cannot import the hub) reaches it too.
import { SLICE_MS, sliceIsDue, yieldIfDue, yieldSometimes } from "../../lib/sharedSlice.js";

export { SLICE_MS, sliceIsDue, yieldSometimes };

/** Thrown by a TimeSlice tick once its work was cancelled (e.g. the socket it feeds closed). */
export class WorkStopped extends Error {
  constructor() {
    super("work stopped: its consumer went away");
    this.name = "WorkStopped";
  }
}

/**
 * Cuts long work that must run on the event loop (replays, long pulls) into slices: `tick()`
 * between steps yields to the loop once the slice is used up, and throws WorkStopped when
 * `stopped()` says nobody wants the result any more. `busyMs` is the time spent inside
 * slices, which is what the caller is charged.
 */
export class TimeSlice {
  busyMs = 0;
  #since = performance.now();
  #charged = 0;

  constructor(private readonly stopped: () => boolean = () => false) {}

  /** Starts a stretch of work after an idle time (which is not busy time). */
  begin(): void {
    this.#since = performance.now();
  }

  readonly tick = async (): Promise<void> => {
    const wait = yieldIfDue();
    if (wait !== undefined) {
      this.busyMs += performance.now() - this.#since;
      await wait;
      this.#since = performance.now();
    }
    if (this.stopped()) throw new WorkStopped();
  };

  /** Ends a stretch of work; returns the busy time since the previous `finish`. */
  finish(): number {
    const now = performance.now();
    this.busyMs += now - this.#since;
    this.#since = now;
    const increment = this.busyMs - this.#charged;
    this.#charged = this.busyMs;
    return increment;
  }
}
