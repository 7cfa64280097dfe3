/**
 * The one slice of the event loop that all sliced work of the process shares (the hub's
 * TimeSlice, and the store's parses of big rows, which cannot reach the hub's layer).
 */

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
export function yieldIfDue(): Promise<void> | undefined {
  if (performance.now() - sliceStart < SLICE_MS) return undefined;
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    scheduleWake();
  });
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
