/** Thrown by a TimeSlice tick once its work was cancelled (e.g. the socket it feeds closed). */
export class WorkStopped extends Error {
  constructor() {
    super("work stopped: its consumer went away");
    this.name = "WorkStopped";
  }
}

/** How long the event loop may stay inside sliced work before it serves others. */
export const SLICE_MS = 10;

/*
 * One slice for all sliced work of the process: whoever finds it used up waits its turn in
 * a FIFO, and each turn of the event loop wakes ONE waiter with a fresh slice. Waking them
 * all in one turn (every setImmediate queued at once) would run N slices back to back and
 * keep a request waiting N times as long; this way the loop polls for I/O between slices.
 */
let sliceStart = performance.now();
const waiting: Array<() => void> = [];
let wakeScheduled = false;

function wakeOne(): void {
  wakeScheduled = false;
  sliceStart = performance.now();
  waiting.shift()?.();
  if (waiting.length > 0) scheduleWake();
}

function scheduleWake(): void {
  if (wakeScheduled) return;
  wakeScheduled = true;
  setImmediate(wakeOne);
}

/** Waits, when the shared slice is used up, until this work's turn comes with a fresh slice. */
function yieldIfDue(): Promise<void> | undefined {
  if (performance.now() - sliceStart < SLICE_MS) return undefined;
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    scheduleWake();
  });
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

/** The tick of background work that is charged to nobody (trusted replays of the store). */
export async function yieldSometimes(): Promise<void> {
  await yieldIfDue();
}

/**
 * Whether the shared slice is used up, checked without awaiting. A loop over many cheap steps
 * awaits `yieldSometimes()` only when this says so: every `await` lets the microtasks run, and
 * some work queued there is meant to gather a whole turn's requests (the signature batches of
 * a push go to the verification workers in one message per microtask checkpoint, so awaiting
 * after each commit sent one message per commit and cost a push 50 us of CPU per commit).
 */
export function sliceIsDue(): boolean {
  return performance.now() - sliceStart >= SLICE_MS;
}
