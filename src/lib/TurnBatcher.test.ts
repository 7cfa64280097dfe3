import assert from "node:assert/strict";
import { test } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { MessageChannel } from "node:worker_threads";
import { postBatch, TurnBatcher } from "./TurnBatcher.js";

test("turn: what the callbacks of one loop iteration push is handed over as one batch, in order", async () => {
  const batches: number[][] = [];
  const batcher = new TurnBatcher<number>((b) => batches.push(b));
  // Immediates queued together run in one check phase (microtasks between them), as requests
  // read in one poll phase do. Not timers: Node reads the clock at each setTimeout, so timers
  // set in a row can straddle a millisecond and fall due in different loop iterations.
  await new Promise<void>((resolve) => {
    for (const n of [1, 2, 3]) setImmediate(() => batcher.push(n));
    setImmediate(resolve);
  });
  assert.deepEqual(batches, [], "nothing is handed over before the check phase");
  await nextTurn();
  assert.deepEqual(batches, [[1, 2, 3]]);
  batcher.push(4);
  await nextTurn();
  batcher.push(5);
  await nextTurn();
  assert.deepEqual(batches, [[1, 2, 3], [4], [5]], "later turns are later batches");
});

test("microtask: a synchronous burst goes as one batch, before the next macrotask", async () => {
  const events: string[] = [];
  const batcher = new TurnBatcher<string>((b) => events.push(`batch ${b.join(",")}`), "microtask");
  // As the writer thread settles a group: answers pushed from promise reactions in a row,
  // with a checkpoint scheduled for a later turn before them.
  setImmediate(() => events.push("checkpoint"));
  await Promise.all(["a", "b", "c"].map((x) => Promise.resolve(x).then((v) => batcher.push(v))));
  await nextTurn();
  assert.deepEqual(events, ["batch a,b,c", "checkpoint"]);
});

test("postBatch: one message that cannot be cloned fails alone; the others still go", async () => {
  const { port1, port2 } = new MessageChannel();
  const received: unknown[] = [];
  const ended = new Promise<void>((resolve) =>
    port2.on("message", (m) => (m === "end" ? resolve() : received.push(m))),
  );
  const unsendable: unknown[] = [];
  const bad = { id: 2, f: () => 0 };
  postBatch(port1, [{ id: 1 }, { id: 3 }], () => assert.fail("all of these can be cloned"));
  postBatch(port1, [{ id: 1 }, bad, { id: 3 }], (m, err) => unsendable.push([m, (err as Error).name]));
  port1.postMessage("end"); // messages arrive in order: once this one is in, so are the batches
  await ended;
  port1.close();
  assert.deepEqual(received, [[{ id: 1 }, { id: 3 }], [{ id: 1 }], [{ id: 3 }]]);
  assert.deepEqual(unsendable, [[bad, "DataCloneError"]]);
});
