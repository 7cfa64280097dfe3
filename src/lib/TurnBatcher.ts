/**
 * Collects the messages queued during one turn and hands them over as one array. Between
 * threads each message costs a wake-up of the receiving thread; sent together, the messages
 * of a burst cost one, and the SQLite writer sees them at once and commits them in one group
 * (docs/storage.md, "The writer thread and group commit").
 *
 * `"turn"` hands over in the next check phase (setImmediate), after the I/O callbacks of this
 * loop iteration: what several requests queue in one iteration goes together. `"microtask"`
 * hands over once the current microtasks have run: what one synchronous burst (the answers of
 * one group, resolved in a row) queues goes together, before any later macrotask.
 */
export class TurnBatcher<T> {
  #queue: T[] = [];

  constructor(
    private readonly send: (batch: T[]) => void,
    private readonly when: "turn" | "microtask" = "turn",
  ) {}

  push(message: T): void {
    this.#queue.push(message);
    if (this.#queue.length > 1) return;
    if (this.when === "turn") setImmediate(this.#flush);
    else queueMicrotask(this.#flush);
  }

  readonly #flush = (): void => {
    const batch = this.#queue;
    this.#queue = [];
    this.send(batch);
  };
}

/**
 * Posts `batch` as one message. If one of its messages cannot be cloned, postMessage throws
 * before anything is sent: then each goes on its own, and each that cannot is handed to
 * `unsendable`, so a bad message fails alone instead of its whole batch (or, thrown from a
 * setImmediate, the process).
 */
export function postBatch<T>(
  port: { postMessage(value: unknown): void },
  batch: T[],
  unsendable: (message: T, err: unknown) => void,
): void {
  try {
    port.postMessage(batch);
    return;
  } catch {
    // Found below, message by message.
  }
  for (const message of batch) {
    try {
      port.postMessage([message]);
    } catch (err) {
      unsendable(message, err);
    }
  }
}
